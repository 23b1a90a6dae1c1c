package dev.sluice.limiter;

import java.util.concurrent.atomic.LongAdder;

/**
 * This process's view of one limiter (or of all partitions of a partitioned limiter).
 *
 * @param granted acquisitions granted by the store
 * @param refused acquisitions refused by the store, or refused from the local queue
 * @param degraded decisions made by the failure mode because the store gave none
 * @param queuedPermits permits waiting in the local queue right now
 * @param lastRemaining the remaining permits reported by the latest decision, or -1 before the first
 * @param capacityRefused decisions the store refused because it was full ({@link Capacity.Policy#REFUSE_NEW_KEYS}),
 *     each also counted in {@code degraded}: the failure mode decided them
 */
public record LimiterStatistics(long granted, long refused, long degraded, long queuedPermits, long lastRemaining,
        long capacityRefused) {

    /** Statistics with no capacity refusals. */
    public LimiterStatistics(long granted, long refused, long degraded, long queuedPermits, long lastRemaining) {
        this(granted, refused, degraded, queuedPermits, lastRemaining, 0);
    }

    /**
     * The counts behind {@link LimiterStatistics}, for a limiter, or a wrapper of one, that counts the
     * decisions it hands out. Thread-safe; recording never blocks.
     */
    public static final class Recorder {
        private final LongAdder granted = new LongAdder();
        private final LongAdder refused = new LongAdder();
        private final LongAdder degraded = new LongAdder();
        private final LongAdder capacityRefused = new LongAdder();
        private volatile long lastRemaining = -1;

        /** A recorder with every count at zero. */
        public Recorder() {}

        /**
         * Counts one decision.
         *
         * @param result how it ended
         * @param remaining the permits left after it, or a negative value when they are unknown (a degraded
         *     decision), which leaves {@code lastRemaining} as it was
         */
        public void record(DecisionResult result, long remaining) {
            switch (result) {
                case GRANTED -> granted.increment();
                case REFUSED -> refused.increment();
                default -> degraded.increment();
            }
            if (remaining >= 0) {
                lastRemaining = remaining;
            }
        }

        /**
         * Counts a decision the store refused at its bound; the degraded decision that follows is counted by
         * {@link #record} as well.
         */
        public void recordCapacityRefusal() {
            capacityRefused.increment();
        }

        /** The counts so far, with {@code queuedPermits} as the caller knows it. */
        public LimiterStatistics snapshot(long queuedPermits) {
            return new LimiterStatistics(granted.sum(), refused.sum(), degraded.sum(), queuedPermits, lastRemaining,
                    capacityRefused.sum());
        }
    }
}
