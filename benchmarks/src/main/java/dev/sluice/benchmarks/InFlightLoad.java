package dev.sluice.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Keeps a fixed number of asynchronous decisions in flight, as the callers of a busy service do: a few issuing
 * threads each take a permit of one shared {@link Semaphore} of {@code inFlight} permits, start a decision on a
 * uniformly random key of {@code 0..keys-1} through {@link Contender#decideAsync} and go on at once; the
 * decision's completion (on whatever thread the contender completes it) counts it and gives the permit back.
 * Completed decisions per second over a window is the throughput; the latency of every 8th decision (start to
 * completion) is sampled while {@link #sampling} is on.
 */
final class InFlightLoad implements AutoCloseable {
    private static final int SAMPLE_EVERY = 8;
    private static final int MAX_SAMPLES = 1 << 18;

    private final Contender contender;
    private final int keys;
    private final int inFlight;
    private final Semaphore permits;
    private final LongAdder completed = new LongAdder();
    private final LongAdder granted = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final AtomicLongArray samples = new AtomicLongArray(MAX_SAMPLES);
    private final AtomicInteger sampled = new AtomicInteger();
    private final List<Thread> issuers = new ArrayList<>();
    private volatile boolean running = true;
    private volatile boolean sampling;
    private volatile Throwable firstFailure;

    /** Starts {@code issuers} issuing threads at once. */
    InFlightLoad(Contender contender, int keys, int inFlight, int issuers) {
        this.contender = contender;
        this.keys = keys;
        this.inFlight = inFlight;
        this.permits = new Semaphore(inFlight);
        for (int i = 0; i < issuers; i++) {
            Thread t = new Thread(this::issue, "in-flight-issuer-" + i);
            t.setDaemon(true);
            this.issuers.add(t);
            t.start();
        }
    }

    private void issue() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long issued = 0;
        while (running) {
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                return;
            }
            if (!running) {
                permits.release();
                return;
            }
            boolean sample = sampling && ++issued % SAMPLE_EVERY == 0;
            long start = sample ? System.nanoTime() : 0;
            CompletableFuture<Boolean> decision;
            try {
                decision = contender.decideAsync(random.nextInt(keys), true);
            } catch (RuntimeException e) {
                fail(e);
                permits.release();
                continue;
            }
            decision.whenComplete((isGranted, failure) -> {
                if (failure != null) {
                    fail(failure);
                } else {
                    completed.increment();
                    if (isGranted) {
                        granted.increment();
                    }
                    if (sample) {
                        int at = sampled.getAndIncrement();
                        if (at < MAX_SAMPLES) {
                            samples.lazySet(at, System.nanoTime() - start);
                        }
                    }
                }
                permits.release();
            });
        }
    }

    private void fail(Throwable failure) {
        failed.increment();
        if (firstFailure == null) {
            firstFailure = failure;
        }
    }

    /** Decisions completed so far (failures not counted). */
    long completed() {
        return completed.sum();
    }

    long granted() {
        return granted.sum();
    }

    long failed() {
        return failed.sum();
    }

    Throwable firstFailure() {
        return firstFailure;
    }

    /** Starts (or stops) sampling latencies, from an empty sample when started. */
    void sampling(boolean on) {
        if (on) {
            sampled.set(0);
        }
        sampling = on;
    }

    /** p50, p99 and p99.9 of the sampled latencies, in µs (zeros without samples). */
    double[] percentilesMicros() {
        int n = Math.min(sampled.get(), MAX_SAMPLES);
        long[] s = new long[n];
        for (int i = 0; i < n; i++) {
            s[i] = samples.get(i);
        }
        Arrays.sort(s);
        return new double[] {at(s, 0.5), at(s, 0.99), at(s, 0.999)};
    }

    private static double at(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1e3;
    }

    /** Stops issuing and waits up to 5 minutes (an overloaded machine) for the decisions in flight to complete. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread t : issuers) {
            t.join(TimeUnit.SECONDS.toMillis(5));
        }
        if (!permits.tryAcquire(inFlight, 5, TimeUnit.MINUTES)) {
            throw new IllegalStateException((inFlight - permits.availablePermits())
                    + " decisions still in flight 5 minutes after the load stopped");
        }
    }

    /**
     * One decision on each key {@code from, from + step, ...} below {@code to}, {@code inFlight} at a time, from
     * this thread; returns once all are answered, with the number that failed.
     */
    static long sweep(Contender contender, int from, int to, int step, int inFlight) throws InterruptedException {
        Semaphore permits = new Semaphore(inFlight);
        LongAdder failures = new LongAdder();
        for (int k = from; k < to; k += step) {
            permits.acquire();
            try {
                contender.decideAsync(k, true).whenComplete((g, failure) -> {
                    if (failure != null) {
                        failures.increment();
                    }
                    permits.release();
                });
            } catch (RuntimeException e) {
                failures.increment();
                permits.release();
            }
        }
        if (!permits.tryAcquire(inFlight, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("sweep: decisions still in flight 60 s after the last was started");
        }
        return failures.sum();
    }
}
