package dev.sluice.it.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.prefilter.LocalPrefilter;
import dev.sluice.prefilter.PrefilterListener;
import dev.sluice.prefilter.PrefilterMode;
import dev.sluice.prefilter.PrefilterOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The pre-filter's allowance on a real cluster: two replicas of one hot key (one on a member, one on a client),
 * each a {@code LocalPrefilter} over its own Hazelcast limiter, 8 threads each, asking until each thread has been
 * refused many times in a row. The store's count bounds admissions; what a replica took and did not grant is
 * either still pooled (under one batch) or reported as discarded.
 */
final class HazelcastAllowanceTest {
    private static final long LIMIT = 3_000;
    private static final double FRACTION = 0.02; // a batch of at most 60 permits
    private static final long CAP = 60;
    private static final int THREADS_PER_REPLICA = 8;
    private static final int REFUSALS_IN_A_ROW = 200;

    /** What one replica's pre-filter took from the store and discarded, and what its callers were granted. */
    private static final class Replica implements PrefilterListener {
        final AtomicLong taken = new AtomicLong();
        final AtomicLong discarded = new AtomicLong();
        final AtomicLong granted = new AtomicLong();
        RateLimiter limiter;

        @Override
        public void onStoreCall(String limiter, long permits, boolean granted) {
            if (granted) {
                taken.addAndGet(permits);
            }
        }

        @Override
        public void onAllowanceDiscarded(String limiter, long permits) {
            discarded.addAndGet(permits);
        }

        long held() {
            return taken.get() - granted.get() - discarded.get();
        }
    }

    @Test
    void twoReplicas_grantNoMoreThanTheLimit_andHoldLessThanABatchEachOnceRefused() throws Exception {
        // One token an hour refills: within the test the bucket's capacity is the whole budget.
        LimitSpec spec = LimitSpec.tokenBucket(LIMIT, 1, Duration.ofHours(1));
        // A slow shared machine must not turn a hop into an unavailable decision: the test counts every hop's answer.
        LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build();
        try (TestCluster cluster = TestCluster.start("sluice-allowance", 2, null)) {
            var client = cluster.addClient(SluiceHazelcast.configure(cluster.clientConfig()));
            List<Replica> replicas = List.of(new Replica(), new Replica());
            List<RateLimiters> stores = List.of(HazelcastRateLimiters.create(cluster.members.get(0)),
                    HazelcastRateLimiters.create(client));
            for (int i = 0; i < 2; i++) {
                Replica r = replicas.get(i);
                r.limiter = LocalPrefilter.wrap(stores.get(i).limiter("hot-allowance", spec, options),
                        PrefilterOptions.builder().mode(PrefilterMode.ALLOWANCE).maxBatchFraction(FRACTION).listener(r)
                                .build());
            }
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (Replica r : replicas) {
                for (int t = 0; t < THREADS_PER_REPLICA; t++) {
                    threads.add(new Thread(() -> {
                        try {
                            int refusedInARow = 0;
                            // Bounded too, so that an allowance granting without end fails instead of hanging
                            for (long attempts = 0; refusedInARow < REFUSALS_IN_A_ROW && attempts < 2 * LIMIT;
                                    attempts++) {
                                Lease lease = r.limiter.tryAcquire();
                                if (lease.isAcquired() && !lease.isDegraded()) {
                                    r.granted.incrementAndGet();
                                    refusedInARow = 0;
                                } else {
                                    refusedInARow++;
                                }
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    }));
                }
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> "callers failed: " + failures);
            long granted = replicas.get(0).granted.get() + replicas.get(1).granted.get();
            long taken = replicas.get(0).taken.get() + replicas.get(1).taken.get();
            String seen = "granted " + granted + ", taken " + taken + ", held " + replicas.get(0).held() + " and "
                    + replicas.get(1).held() + ", discarded " + replicas.get(0).discarded.get() + " and "
                    + replicas.get(1).discarded.get();
            assertTrue(granted <= LIMIT, () -> "more than the limit: " + seen);
            assertEquals(LIMIT, taken, () -> "the store's whole budget was taken, and no more: " + seen);
            for (Replica r : replicas) {
                assertTrue(r.held() >= 0 && r.held() < CAP, () -> "a replica holds a batch or more: " + seen);
            }
            // The store agrees: nothing is left to grant.
            try (RateLimiters direct = HazelcastRateLimiters.create(cluster.members.get(1))) {
                Lease after = direct.limiter("hot-allowance", spec, options).tryAcquire();
                assertTrue(!after.isAcquired() && after.remaining() == 0, () -> "the store still grants: " + after
                        + "; " + seen);
            }
            stores.forEach(RateLimiters::close);
        }
    }
}
