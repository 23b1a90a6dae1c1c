package dev.sluice.limiter;

/**
 * How the runtime coalesces concurrent decisions over any store: while a call on a key is in flight, new
 * decisions for that key queue up, and when it returns they all go as one call, decided in arrival order by
 * one run where the key lives (one write, and on Hazelcast one backup of the final state). Decisions for other keys are
 * never held back. There is no timer: a lone caller is
 * sent at once, as without coalescing. Every request gets the verdict it would have had alone, in that
 * order (past {@code stallMillis}, hops in flight together may run in any order: see the README).
 *
 * @param enabled false to send every decision as a call of its own
 * @param maxBatchRequests most requests in one hop, at least 1
 * @param maxBatchBytes about the most payload (keys and request words) in one hop, at least 256; a
 *     single request is always sent, whatever its size
 * @param maxQueuedPerKey most decisions waiting for one key; beyond it a decision fails at
 *     once with a retryable {@link CoalescingQueueFullException}
 * @param stallMillis when the hop in flight on a key left longer ago than this, a new decision does
 *     not wait behind it: it is sent, with what queued before it, as one more hop in flight; at least 0
 *     (0: no decision ever waits behind a hop in flight, which mostly undoes the batching)
 */
public record Coalescing(boolean enabled, int maxBatchRequests, int maxBatchBytes, int maxQueuedPerKey,
        long stallMillis) {
    /** The most requests one call may carry, whatever the settings: what a store's reader accepts. */
    public static final int MAX_BATCH_REQUESTS = 1 << 16;
    /** Default {@link #maxBatchRequests()}. */
    public static final int DEFAULT_MAX_BATCH_REQUESTS = 128;
    /** Default {@link #maxBatchBytes()}: 32 KiB. */
    public static final int DEFAULT_MAX_BATCH_BYTES = 32 * 1024;
    /** Default {@link #maxQueuedPerKey()}. */
    public static final int DEFAULT_MAX_QUEUED_PER_KEY = 1_000;
    /** Default {@link #stallMillis()}. */
    public static final long DEFAULT_STALL_MILLIS = 250;

    public Coalescing {
        if (maxBatchRequests < 1 || maxBatchRequests > MAX_BATCH_REQUESTS) {
            throw new IllegalArgumentException("maxBatchRequests must be between 1 and "
                    + MAX_BATCH_REQUESTS + ", was " + maxBatchRequests);
        }
        if (maxBatchBytes < 256) {
            throw new IllegalArgumentException("maxBatchBytes must be at least 256, was " + maxBatchBytes);
        }
        if (maxQueuedPerKey < 1) {
            throw new IllegalArgumentException("maxQueuedPerKey must be at least 1, was "
                    + maxQueuedPerKey);
        }
        if (stallMillis < 0) {
            throw new IllegalArgumentException("stallMillis must be at least 0, was " + stallMillis);
        }
    }

    /** Coalescing on, with the default bounds. */
    public static Coalescing on() {
        return new Coalescing(true, DEFAULT_MAX_BATCH_REQUESTS, DEFAULT_MAX_BATCH_BYTES,
                DEFAULT_MAX_QUEUED_PER_KEY, DEFAULT_STALL_MILLIS);
    }

    /** The same settings with coalescing on or off. */
    public Coalescing withEnabled(boolean on) {
        return new Coalescing(on, maxBatchRequests, maxBatchBytes, maxQueuedPerKey, stallMillis);
    }

    /** Coalescing off: one invocation per decision. */
    public static Coalescing disabled() {
        return new Coalescing(false, DEFAULT_MAX_BATCH_REQUESTS, DEFAULT_MAX_BATCH_BYTES,
                DEFAULT_MAX_QUEUED_PER_KEY, DEFAULT_STALL_MILLIS);
    }
}
