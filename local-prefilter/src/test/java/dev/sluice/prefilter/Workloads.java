package dev.sluice.prefilter;

import dev.sluice.limiter.Ticker;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The workloads behind the tests and the figures in docs/local-prefilter.md. Deterministic: one manual clock drives
 * both sides.
 */
final class Workloads {
    private Workloads() {}

    /** A limit of 10 per second in every algorithm that the refusal cache applies to. */
    static Stream<LimitSpec> specs() {
        return Stream.of(
                LimitSpec.fixedWindow(10, Duration.ofSeconds(1)),
                LimitSpec.slidingWindow(10, Duration.ofSeconds(1), 10),
                LimitSpec.slidingLog(10, Duration.ofSeconds(1)),
                LimitSpec.slidingCounter(10, Duration.ofSeconds(1)),
                LimitSpec.tokenBucket(10, 1, Duration.ofMillis(100)),
                LimitSpec.gcra(10, Duration.ofSeconds(1), 10));
    }

    /** Algorithms whose refusals last until a window (or its oldest entry) ends. */
    static boolean isWindowed(LimitSpec spec) {
        return spec instanceof LimitSpec.FixedWindow || spec instanceof LimitSpec.SlidingWindow
                || spec instanceof LimitSpec.SlidingLog;
    }

    static boolean isSteadyRate(LimitSpec spec) {
        return spec instanceof LimitSpec.TokenBucket || spec instanceof LimitSpec.Gcra;
    }

    /** The allowance behind a limiter wrapped in {@link PrefilterMode#ALLOWANCE}. */
    static AllowancePool pool(RateLimiter wrapped) {
        return (AllowancePool) ((PrefilteredRateLimiter) wrapped).prefilter;
    }

    /** The local monotonic clock of a test: the manual clock in nanoseconds, so both advance together. */
    static Ticker ticker(ManualClock clock) {
        return () -> clock.millis() * 1_000_000L;
    }

    /**
     * The decisions of an unwrapped limiter and of a wrapped one on identical stores.
     *
     * @param plain one entry per request: {@code G} or {@code R<retryAfter ms>}
     */
    record Comparison(String algorithm, long requests, long granted, long plainCalls, long wrappedCalls,
            List<String> plain, List<String> wrapped) {
        double reduction() {
            return 1 - (double) wrappedCalls / plainCalls;
        }

        @Override
        public String toString() {
            return algorithm + ": requests=" + requests + ", granted=" + granted + ", store calls " + plainCalls
                    + " -> " + wrappedCalls + String.format(" (%.1f%% fewer)", 100 * reduction());
        }
    }

    /** One client sending {@code factor} × its limit of 10/s, evenly spaced, for {@code seconds}. */
    static Comparison compareRefusalCache(LimitSpec spec, int factor, int seconds, ManualClock clock) {
        CountingStore plainStore = new CountingStore(clock);
        CountingStore wrappedStore = new CountingStore(clock);
        try (RateLimiters plainRuntime = RateLimiterRuntime.create(plainStore);
                RateLimiters wrappedRuntime = RateLimiterRuntime.create(wrappedStore)) {
            RateLimiter plain = plainRuntime.limiter("client", spec);
            RateLimiter wrapped = LocalPrefilter.wrap(wrappedRuntime.limiter("client", spec),
                    PrefilterOptions.builder().ticker(ticker(clock)).build());
            long perSecond = 10L * factor;
            long gapMicros = 1_000_000 / perSecond;
            List<String> a = new ArrayList<>();
            List<String> b = new ArrayList<>();
            long granted = 0;
            long start = clock.millis();
            for (long i = 0; i < perSecond * seconds; i++) {
                long at = start + i * gapMicros / 1000;
                clock.set(java.time.Instant.ofEpochMilli(at));
                Lease x = plain.tryAcquire(1);
                Lease y = wrapped.tryAcquire(1);
                a.add(describe(x));
                b.add(describe(y));
                granted += x.isAcquired() ? 1 : 0;
            }
            return new Comparison(spec.algorithm(), perSecond * seconds, granted, plainStore.calls.get(),
                    wrappedStore.calls.get(), a, b);
        }
    }

    private static String describe(Lease l) {
        return l.isAcquired() ? "G" : "R" + l.retryAfter().map(Duration::toMillis).orElse(-1L);
    }

    /** What the allowance workload measured. */
    record AllowanceRun(int replicas, int threads, long limit, long batchCap, long requests, long storeCalls,
            long[] grantedPerWindow, long maxStrandedAtRefusal, long maxPooled, long discarded) {
        double hopsPerRequest() {
            return (double) storeCalls / requests;
        }

        long bound() {
            return replicas * batchCap;
        }

        long minGrantedPerWindow() {
            return java.util.Arrays.stream(grantedPerWindow).min().orElse(0);
        }

        long maxGrantedPerWindow() {
            return java.util.Arrays.stream(grantedPerWindow).max().orElse(0);
        }

        @Override
        public String toString() {
            return "allowance: replicas=" + replicas + ", threads=" + threads + ", limit=" + limit + "/window, cap="
                    + batchCap + ", requests=" + requests + ", store calls=" + storeCalls + ", granted per window="
                    + java.util.Arrays.toString(grantedPerWindow) + ", max stranded at a refusal=" + maxStrandedAtRefusal
                    + " (bound " + bound() + "), max pooled=" + maxPooled + ", discarded=" + discarded;
        }
    }

    /**
     * {@code replicas} wrappers in allowance mode on one key of one store, each on its own runtime, with
     * {@code threadsPerReplica} threads per replica sending {@code perThreadPerTick} requests every 10 ms tick
     * for {@code windows} fixed windows of one second. The clock moves only between ticks, when every thread
     * is done, so each grant is counted in the window it was made in and the pools can be read at rest.
     */
    static AllowanceRun allowance(int replicas, int threadsPerReplica, long limit, int perThreadPerTick, int windows,
            double fraction) throws Exception {
        ManualClock clock = new ManualClock();
        CountingStore store = new CountingStore(clock);
        LimitSpec spec = LimitSpec.fixedWindow(limit, Duration.ofSeconds(1));
        List<RateLimiters> runtimes = new ArrayList<>();
        RateLimiter[] wrapped = new RateLimiter[replicas];
        java.util.concurrent.atomic.AtomicLong discarded = new java.util.concurrent.atomic.AtomicLong();
        PrefilterOptions options = PrefilterOptions.builder().mode(PrefilterMode.ALLOWANCE).ticker(ticker(clock))
                .maxBatchFraction(fraction).listener(new PrefilterListener() {
                    @Override
                    public void onAllowanceDiscarded(String name, long permits) {
                        discarded.addAndGet(permits);
                    }
                }).build();
        for (int i = 0; i < replicas; i++) {
            RateLimiters runtime = RateLimiterRuntime.create(store);
            runtimes.add(runtime);
            wrapped[i] = LocalPrefilter.wrap(runtime.limiter("hot", spec), options);
        }
        String key = wrapped[0].key();
        int threads = replicas * threadsPerReplica;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        long[] grantedPerWindow = new long[windows];
        long maxStranded = 0;
        long maxPooled = 0;
        long requests = 0;
        try {
            int ticksPerWindow = 100;
            for (int tick = 0; tick < windows * ticksPerWindow; tick++) {
                List<java.util.concurrent.Callable<long[]>> tasks = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    RateLimiter r = wrapped[t % replicas];
                    tasks.add(() -> {
                        long granted = 0;
                        long refused = 0;
                        for (int i = 0; i < perThreadPerTick; i++) {
                            if (r.tryAcquire(1).isAcquired()) {
                                granted++;
                            } else {
                                refused++;
                            }
                        }
                        return new long[] {granted, refused};
                    });
                }
                long refusedThisTick = 0;
                for (java.util.concurrent.Future<long[]> f : pool.invokeAll(tasks)) {
                    long[] r = f.get();
                    grantedPerWindow[tick / ticksPerWindow] += r[0];
                    refusedThisTick += r[1];
                }
                requests += (long) threads * perThreadPerTick;
                long pooled = 0;
                for (RateLimiter r : wrapped) {
                    pooled += pool(r).pooled(key);
                }
                maxPooled = Math.max(maxPooled, pooled);
                if (refusedThisTick > 0) {
                    maxStranded = Math.max(maxStranded, pooled);
                }
                clock.advance(Duration.ofMillis(10));
            }
        } finally {
            pool.shutdownNow();
            for (RateLimiters r : runtimes) {
                r.close();
            }
        }
        long cap = pool(wrapped[0]).batchCap();
        return new AllowanceRun(replicas, threads, limit, cap, requests, store.calls.get(), grantedPerWindow,
                maxStranded, maxPooled, discarded.get());
    }
}
