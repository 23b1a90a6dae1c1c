package dev.sluice.limiter;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One key's state as a caller of its limiter reads it, without consuming: what the next request for one permit
 * would find. Read by {@link RateLimiter#inspect()} and {@link PartitionedRateLimiter#inspect(Object)}, and
 * answered by a reset for the state it leaves.
 *
 * @param key the store key
 * @param spec the spec the key was read with (its {@link #algorithm()} and limit)
 * @param limit the most permits one request may ask for: the spec's {@link LimitSpec#limit()}
 * @param remaining permits available now
 * @param resetAfter how long until the key is back to a full budget if no one asks; {@link Duration#ZERO} when it
 *     is full
 * @param retryAfter how long until one permit is available if no one else asks: {@link Duration#ZERO} when one is
 *     available now; empty when no time is known (a concurrency key whose permits are all held by leases, which
 *     free when released)
 * @param readAt the time of the read on the clock of the node that holds the key (never earlier than the key's own
 *     latest time)
 * @param ownState whether the key holds live state of its own; {@code false} for a key that has not been used in
 *     its window, or whose decisions are made on an overflow cell
 * @param onOverflowCell whether the key's decisions are made on an overflow cell it shares with other keys of its
 *     limiter (a store kept at its bound, {@link Capacity.Policy#SHARE_OVERFLOW_CELLS}): the numbers are the cell's
 * @param debt the permits the key still owes after paying from what its budget holds now (cost settled above what
 *     its leases reserved, {@link Lease#settle(long)}), repaid before any grant; 0 when it owes nothing, which is
 *     whenever {@code remaining} is above 0. A reset clears it.
 */
public record KeyState(String key, LimitSpec spec, long limit, long remaining, Duration resetAfter,
        Optional<Duration> retryAfter, Instant readAt, boolean ownState, boolean onOverflowCell, long debt) {

    /** A key that owes nothing. */
    public KeyState(String key, LimitSpec spec, long limit, long remaining, Duration resetAfter,
            Optional<Duration> retryAfter, Instant readAt, boolean ownState, boolean onOverflowCell) {
        this(key, spec, limit, remaining, resetAfter, retryAfter, readAt, ownState, onOverflowCell, 0);
    }

    public KeyState {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(resetAfter, "resetAfter");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(readAt, "readAt");
    }

    /** The spec's algorithm name, e.g. {@code "token-bucket"}. */
    public String algorithm() {
        return spec.algorithm();
    }

    /** Whether the key is at its full budget: {@code remaining == limit}. */
    public boolean isFull() {
        return remaining == limit;
    }
}
