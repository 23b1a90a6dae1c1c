package dev.sluice.benchmarks;

import com.hazelcast.internal.util.ConcurrencyUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Set-up: spends the one token of every closed key before a refusal workload is measured. */
final class Exhaust {
    private Exhaust() {}

    /**
     * Sluice: up to 256 async decisions in flight, with Hazelcast's completions run inline meanwhile (its
     * default executor starts a thread per completion on 2 cores, which would make set-up take longer
     * than the measurement). Others: 32 threads deciding synchronously (Bucket4j's async path makes a
     * second call from its continuation, which must not run on a partition thread).
     */
    static void closedKeys(Contender contender, int keys) throws InterruptedException {
        decideOnce(contender, 0, keys, false);
    }

    /**
     * With an asynchronous backup, set-up is answered without waiting for its backups, so a member may still be
     * applying a backlog of them (its partition threads run them in order with its own decisions) when measuring
     * starts, and the first measured decisions wait behind it past their timeout. Decides again on the first
     * keys of the open policy (spread over every partition), 256 in flight, until one pass of them is answered
     * without a failure, or 60 s pass.
     */
    static void settle(Contender contender, int keys) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int probes = Math.min(keys, 4_096);
        Executor before = ConcurrencyUtil.getDefaultAsyncExecutor();
        ConcurrencyUtil.setDefaultAsyncExecutor(ConcurrencyUtil.CALLER_RUNS);
        try {
            while (System.nanoTime() < deadline) {
                AtomicInteger failed = new AtomicInteger();
                Semaphore inFlight = new Semaphore(256);
                for (int k = 0; k < probes; k++) {
                    inFlight.acquire();
                    contender.decideAsync(k, true).whenComplete((granted, failure) -> {
                        if (failure != null) {
                            failed.incrementAndGet();
                        }
                        inFlight.release();
                    });
                }
                inFlight.acquire(256);
                if (failed.get() == 0) {
                    return;
                }
            }
        } finally {
            ConcurrencyUtil.setDefaultAsyncExecutor(before);
        }
    }

    /** One decision for each key {@code from..to-1} of the open or closed policy, as fast as set-up allows. */
    static void decideOnce(Contender contender, int from, int to, boolean open) throws InterruptedException {
        if (contender instanceof SluiceContender) {
            Executor before = ConcurrencyUtil.getDefaultAsyncExecutor();
            ConcurrencyUtil.setDefaultAsyncExecutor(ConcurrencyUtil.CALLER_RUNS);
            try {
                Semaphore inFlight = new Semaphore(256);
                for (int k = from; k < to; k++) {
                    inFlight.acquire();
                    contender.decideAsync(k, open).whenComplete((granted, failure) -> inFlight.release());
                }
                inFlight.acquire(256);
            } finally {
                ConcurrencyUtil.setDefaultAsyncExecutor(before);
            }
            return;
        }
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            int part = t;
            Thread thread = new Thread(() -> {
                for (int k = from + part; k < to; k += 32) {
                    contender.decide(k, open);
                }
            }, "exhaust-" + t);
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
    }
}
