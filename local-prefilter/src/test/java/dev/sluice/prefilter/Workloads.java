package dev.sluice.prefilter;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.spi.RateLimiterRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The workloads behind the tests and the README figures. Deterministic: one manual clock drives both sides. */
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

    static boolean isSteadyRate(LimitSpec spec) {
        return spec instanceof LimitSpec.TokenBucket || spec instanceof LimitSpec.Gcra;
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
}
