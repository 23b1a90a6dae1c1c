package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;

import dev.sluice.limiter.LimitSpec;

/**
 * The read and the reset of one key ({@link Op#INSPECT}, {@link Op#RESET}), as pure steps beside the algorithms'.
 *
 * <p>A read is the answer a probe for one permit gets (remaining, retry-after for one permit, reset-after), with
 * the state handed back untouched, so no backend writes or backs anything up for it. Its token carries the time of
 * the read on the deciding node's clock (never earlier than the key's own latest time) and {@link #OWN_STATE} when
 * the key holds live state of its own; a store that answers from an overflow cell marks it as usual
 * ({@link Overflow#marked}).
 *
 * <p>A reset writes what a fresh key would hold after taking {@code limit - remaining} at the time of the step:
 * nothing for a full budget (the entry goes, with any refund memory); for a composite, each component as a fresh
 * component left with {@code min(remaining, its limit)}. A concurrency key is only reset to a full budget: its
 * leases are dropped, but it keeps its last fencing token for one lease duration, so tokens issued after the reset
 * still exceed every token issued before it. A reset answers with the read of the state it leaves.
 */
public final class Inspection {
    /** Set in a read's token when the key holds live state of its own. */
    public static final long OWN_STATE = 1L << 61;
    private static final long TIME_MASK = OWN_STATE - 1;

    private Inspection() {}

    /** The time of the read a verdict's token carries (its marks removed). */
    public static long timeOf(long token) {
        return token & TIME_MASK;
    }

    /** Whether a read's token says the key holds live state of its own. */
    public static boolean hasOwnState(long token) {
        return (token & OWN_STATE) != 0;
    }

    /**
     * The read of {@code core} (the stored state without refund memory) at {@code now}, answered with
     * {@code stored} as the state: nothing changes.
     *
     * @throws IllegalStateException if the key holds another algorithm's state
     */
    static Verdict inspect(LimitSpec spec, long[] stored, long[] core, long now) {
        Verdict probe = Algorithms.decide(spec, core, now, Op.ACQUIRE, 0, 0);
        boolean live = core != null && now < core[EXPIRES_AT];
        long at = live ? Math.max(now, core[LAST_NOW]) : now;
        return Verdict.of(probe.granted(), probe.remaining(), probe.limit(), probe.retryAfterMillis(),
                probe.resetAfterMillis(), at | (live ? OWN_STATE : 0)).withState(stored, 0);
    }

    /**
     * The reset of {@code core} to {@code remaining} at {@code now}; see the class comment.
     *
     * @throws IllegalArgumentException if {@code remaining} is out of range for the spec
     * @throws IllegalStateException if the key holds another algorithm's state
     */
    static Verdict reset(LimitSpec spec, long[] stored, long[] core, long now, long remaining) {
        spec.checkRemaining(remaining, null);
        inspect(spec, core, core, now); // refuses another algorithm's state, as every step does
        boolean live = core != null && now < core[EXPIRES_AT];
        long at = live ? Math.max(now, core[LAST_NOW]) : now;
        long[] next = null;
        if (spec instanceof LimitSpec.Concurrency concurrency) {
            next = live ? ConcurrencyStep.withoutLeases(concurrency, Catalogue.of(spec).upgrade(core), at) : null;
        } else if (remaining < spec.limit()) {
            next = spec instanceof LimitSpec.AllOf all ? CompositeStep.freshWith(all, at, remaining)
                    : fresh(spec, at, spec.limit() - remaining);
        }
        if (next == null) {
            return Verdict.granted(spec.limit(), spec.limit(), 0, at, 0, null);
        }
        return inspect(spec, next, next, at).withState(next, next[EXPIRES_AT] - at);
    }

    /** The state of a fresh key that took {@code permits} at {@code now}, or {@code null} when it holds none. */
    static long[] fresh(LimitSpec spec, long now, long permits) {
        Verdict v = Catalogue.of(spec).run(spec, null, now, Op.ACQUIRE, permits, 0);
        return v.state() != null && v.ttlMillis() > 0 ? v.state() : null;
    }
}
