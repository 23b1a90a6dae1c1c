package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.util.Objects;

/**
 * The algorithms as one pure function: {@code step(spec, state, now, op, permits, leaseId)} returns the
 * decision and the next state. A step never reads a clock, never mutates the state it is given, and
 * allocates nothing but the new state and the verdict, so every backend can run the same code where the
 * key's state lives.
 *
 * <p>State layout, common to all algorithms: word 0 is a header (magic, algorithm id, layout version
 * and a shape word such as the segment count), word 1 the latest time the key has seen (so time never
 * runs backwards for a key, even when the clock of a new owner lags), word 2 the absolute time at
 * which the state stops mattering. State at or past that time reads as absent ({@link #isExpired}), which is
 * what lets a backend without per-entry TTL (JCache, Hazelcast until its sweep) keep stale entries around
 * harmlessly. The algorithm's own words follow.
 *
 * <p>State written by a different algorithm under the same key is detected by its header and refused
 * with an {@link IllegalStateException}; it is never misread and never silently reset.
 *
 * <p>A rate state may end with the permits the key owes ({@link Debt}) and the ids of the refunds and charges it
 * recently applied ({@link RefundMemory}); {@link #step} takes them off before the algorithm's step and puts them
 * back after, so no step ever sees them.
 */
public final class Algorithms {
    static final long MAGIC = 0x51CEL;
    /** The layout version of an algorithm's state unless it says otherwise ({@link Algorithm#layoutVersion}). */
    static final int LAYOUT_VERSION = 1;
    static final int HEADER = 0;
    static final int LAST_NOW = 1;
    static final int EXPIRES_AT = 2;
    static final int HEADER_WORDS = 3;

    private Algorithms() {}

    /**
     * Runs one decision. Pure: the result depends only on the arguments.
     *
     * @param spec what to enforce
     * @param state the stored state, or {@code null} when the key has none
     * @param nowMillis the time of the decision, from the clock of the node running the step
     * @param op what to do
     * @param permits for {@link Op#ACQUIRE}, how many permits to take; 0 probes without consuming; for
     *     {@link Op#RESET}, the remaining to leave; for {@link Op#REFUND} and {@link Op#CHARGE}, the permits given
     *     back or charged, maybe with an id ({@link #refundPermits})
     * @param leaseId for {@link Op#RENEW} and {@link Op#RELEASE}, the lease's token; for a concurrency
     *     {@link Op#ACQUIRE}, a random nonce that keeps tokens of a split cluster's two sides apart and
     *     makes a retry of the same acquisition return the lease it was granted (0: none)
     * @throws IllegalArgumentException if {@code permits} is negative or above the spec's limit, or the op
     *     does not apply to the algorithm
     * @throws IllegalStateException if the key holds another algorithm's state
     */
    public static Verdict step(LimitSpec spec, long[] state, long nowMillis, Op op, long permits, long leaseId) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(op, "op");
        if (isExpired(state, nowMillis)) {
            // Exactly the step of a key without state (another algorithm's expired state included), so a store that
            // keeps expired entries until a sweep decides as one whose entries vanish on time; a step that stores
            // nothing leaves the entry as it is.
            Verdict v = step(spec, null, nowMillis, op, permits, leaseId);
            return v.state() == null ? v.withState(state, 0) : v;
        }
        int remembered = RefundMemory.count(state);
        long[] owing = RefundMemory.core(state, remembered);
        long[] core = Debt.without(owing);
        if (op == Op.INSPECT) {
            return owing == core ? Inspection.inspect(spec, state, core, nowMillis)
                    : Debt.inspect(spec, state, owing, nowMillis);
        }
        if (op == Op.RESET) {
            return Inspection.reset(spec, state, core, nowMillis, permits); // a debt goes with the old state
        }
        if (op == Op.REPLACE_FOREIGN) {
            boolean foreign = state != null && !isReadable(spec, core);
            return foreign ? Verdict.granted(0, spec.limit(), 0, 0, 0, null)
                    : Verdict.refused(0, spec.limit(), Verdict.NO_RETRY, 0, 0, state);
        }
        long refundId = 0;
        if ((op == Op.REFUND || op == Op.CHARGE) && permits > RefundMemory.PERMITS_MASK) {
            refundId = permits >>> RefundMemory.ID_SHIFT;
            permits &= RefundMemory.PERMITS_MASK;
        }
        if (op == Op.CHARGE) {
            // A cost may exceed the limit (more tokens than a window allows): the budget pays what it holds.
            if (permits < 0 || permits > LimitSpec.MAX_LIMIT) {
                throw new IllegalArgumentException("a charge must be between 0 and " + LimitSpec.MAX_LIMIT
                        + " permits, was " + permits);
            }
        } else {
            checkPermits(spec, permits);
        }
        boolean debt = owing != core || op == Op.CHARGE;
        if (remembered == 0 && refundId == 0 && !debt) {
            return decide(spec, state, nowMillis, op, permits, leaseId);
        }
        long[] memory = RefundMemory.live(RefundMemory.entries(state, remembered), nowMillis);
        if (refundId != 0 && RefundMemory.contains(memory, refundId)) {
            // Run again (an at-least-once re-run): it was applied; nothing changes this time.
            return Verdict.of(true, 0, spec.limit(), Verdict.NO_RETRY, 0, op == Op.CHARGE ? Debt.owed(owing) : 0)
                    .withState(state, 0);
        }
        Verdict v = debt ? Debt.decide(spec, owing, nowMillis, op, permits, leaseId)
                : decide(spec, owing, nowMillis, op, permits, leaseId);
        // A charge always changes the key (it is paid, or owed); a refund only when it gave something back.
        boolean remember = refundId != 0 && (op == Op.CHARGE || v.granted());
        if (!v.stateChanged(owing) && !remember) {
            return v.state() == state ? v : v.withState(state, v.ttlMillis()); // a memory expiring writes nothing
        }
        long now = Math.max(nowMillis, owing == null ? nowMillis : owing[LAST_NOW]);
        if (remember) {
            memory = RefundMemory.add(memory, refundId, now + RefundMemory.KEPT_MILLIS);
        }
        long[] next = !v.stateChanged(owing) ? owing : v.ttlMillis() > 0 ? v.state() : null;
        if (memory == null || next == null && owing == null) {
            return v;
        }
        if (next == null) { // nothing left to keep but the memory: the core stays, reading as absent from now on
            next = core.clone();
            next[LAST_NOW] = now;
            next[EXPIRES_AT] = now;
        }
        long ttl = Math.max(v.state() == null ? 0 : v.ttlMillis(), RefundMemory.keptUntil(memory) - now);
        return v.withState(RefundMemory.attach(next, memory), ttl);
    }

    /** {@link #step} on state without a refund memory. */
    static Verdict decide(LimitSpec spec, long[] state, long nowMillis, Op op, long permits, long leaseId) {
        Algorithm algorithm = Catalogue.of(spec);
        boolean concurrency = algorithm.description().kind() == AlgorithmDescription.Kind.CONCURRENCY;
        if (op == Op.REFUND ? concurrency : op != Op.ACQUIRE && !concurrency) {
            throw new IllegalArgumentException(op + (concurrency ? " applies to rate limiters only; a concurrency lease"
                    + " is given back by RELEASE" : " applies to concurrency limiters only, not " + spec.algorithm()));
        }
        long[] current = state;
        long now = nowMillis;
        if (current != null) {
            checkHeader(algorithm, spec, current);
            if (now >= current[EXPIRES_AT]) {
                current = null; // stale: equivalent to no state at all
            } else {
                now = Math.max(now, current[LAST_NOW]);
                current = algorithm.upgrade(current); // an older layout read as the current one
            }
        }
        if (op == Op.REFUND) {
            return refund(algorithm, spec, state, current, now, permits, leaseId);
        }
        Verdict v = algorithm.run(spec, current, now, op, permits, leaseId);
        // A step that changed nothing returns the very instance it was given; a stale input that was
        // treated as absent, or an old layout read as the new one, and left unchanged must still not be
        // rewritten.
        if (v.state() == current && current != state) {
            return v.withState(state, v.ttlMillis());
        }
        return v;
    }

    /**
     * Gives back {@code permits} granted at {@code at} (the grant verdict's token), by the algorithm's own rule;
     * state that no longer holds the grant (stale, another window, another shape) is left as it is. The
     * verdict is granted when something was given back.
     */
    private static Verdict refund(Algorithm algorithm, LimitSpec spec, long[] stored, long[] current, long now,
            long permits, long at) {
        long[] updated = current == null || permits == 0 ? current : algorithm.refunded(spec, current, now, permits, at);
        if (updated == current) {
            return Verdict.refused(0, spec.limit(), Verdict.NO_RETRY, 0, 0, stored);
        }
        long ttl = updated == null ? 0 : updated[EXPIRES_AT] - now;
        // Given back to where no state is needed (a full bucket): the entry goes.
        return Verdict.granted(0, spec.limit(), ttl, 0, ttl, ttl > 0 ? updated : null);
    }

    /**
     * The longest a state of {@code spec} (not a composite) can matter after a write, for sizing a store's expiry:
     * its algorithm's {@link Algorithm#longestLifetimeMillis}.
     */
    public static long longestLifetimeMillis(LimitSpec spec) {
        return Catalogue.of(spec).longestLifetimeMillis(spec);
    }

    /** Shorthand for an {@link Op#ACQUIRE} step. */
    public static Verdict acquire(LimitSpec spec, long[] state, long nowMillis, long permits) {
        return step(spec, state, nowMillis, Op.ACQUIRE, permits, 0);
    }

    /**
     * Checks a permit count against a spec.
     *
     * @throws IllegalArgumentException naming the value and the bound
     */
    public static void checkPermits(LimitSpec spec, long permits) {
        spec.checkPermits(permits, null);
    }

    /**
     * The algorithm id a spec writes into its state's header.
     *
     * @throws IllegalArgumentException if no algorithm describes the spec's type
     */
    public static int algorithmId(LimitSpec spec) {
        return Catalogue.of(spec).description().id();
    }

    /**
     * True if a Sluice state keeps its data as a byte stream already (a sliding log of layout 2, concurrency leases
     * of layout 3), so that a backend that packs states into fewer words gains nothing by trying.
     */
    public static boolean isCompact(long[] state) {
        Algorithm algorithm = Catalogue.withId(algorithmIdOf(state));
        return algorithm != null && algorithm.isCompact() && layoutOf(state) == algorithm.layoutVersion();
    }

    /** The algorithm id stored in a state's header, or -1 if the words are not Sluice state. */
    public static int algorithmIdOf(long[] state) {
        if (state == null || state.length < HEADER_WORDS || (state[HEADER] >>> 48) != MAGIC) {
            return -1;
        }
        return (int) ((state[HEADER] >>> 40) & 0xFF);
    }

    /**
     * The time at which a state stops mattering (its algorithm's expiry, or later while it owes a debt or remembers
     * recent refunds), or {@link Long#MIN_VALUE} for non-Sluice words.
     */
    public static long expiresAt(long[] state) {
        if (algorithmIdOf(state) < 0) {
            return Long.MIN_VALUE;
        }
        int remembered = RefundMemory.count(state);
        long expires = Math.max(state[EXPIRES_AT], Debt.keptUntil(RefundMemory.core(state, remembered)));
        return remembered == 0 ? expires
                : Math.max(expires, RefundMemory.keptUntil(RefundMemory.entries(state, remembered)));
    }

    /**
     * Whether {@code state} is Sluice state that no longer matters at {@code nowMillis} ({@link #expiresAt} has
     * passed): every step reads it exactly as a key without state. The one rule a store follows wherever it asks
     * whether a key has state (placement on an overflow cell, a merge, a sweep of idle entries); words that are not
     * Sluice state are never expired.
     */
    public static boolean isExpired(long[] state, long nowMillis) {
        return state != null && algorithmIdOf(state) >= 0 && expiresAt(state) <= nowMillis;
    }

    /** {@code state}, or {@code null} when it is {@linkplain #isExpired expired} at {@code nowMillis}. */
    public static long[] live(long[] state, long nowMillis) {
        return isExpired(state, nowMillis) ? null : state;
    }

    /**
     * The permits word of a {@link Op#REFUND} that carries a refund id: the permits in its low 30 bits, the id
     * in the 33 above (the sign bit stays clear). A refund run again with the same id (an at-least-once re-run,
     * a retry) changes nothing the second time, for as long as the state remembers it ({@link RefundMemory}).
     *
     * @param refundId a random id of up to 33 bits, not 0
     */
    public static long refundPermits(long permits, long refundId) {
        if (refundId <= 0 || refundId >>> (63 - RefundMemory.ID_SHIFT) != 0) {
            throw new IllegalArgumentException("refundId must be between 1 and 2^33 - 1, was " + refundId);
        }
        return (refundId << RefundMemory.ID_SHIFT) | (permits & RefundMemory.PERMITS_MASK);
    }

    /** A random refund id for {@link #refundPermits}. */
    public static long newRefundId() {
        long id = 0;
        while (id == 0) {
            id = java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> (RefundMemory.ID_SHIFT + 1);
        }
        return id;
    }

    static long header(int algorithmId, int shape) {
        return (MAGIC << 48) | ((long) algorithmId << 40) | ((long) layoutVersion(algorithmId) << 32)
                | (shape & 0xFFFF_FFFFL);
    }

    /** The layout version this code writes for an algorithm. */
    static int layoutVersion(int algorithmId) {
        Algorithm algorithm = Catalogue.withId(algorithmId);
        return algorithm == null ? LAYOUT_VERSION : algorithm.layoutVersion();
    }

    /** The layout version in a Sluice state's header. */
    static int layoutOf(long[] state) {
        return (int) ((state[HEADER] >>> 32) & 0xFF);
    }

    /**
     * The shape word's low 16 bits (segments, components); the next 15 count remembered refunds, the top one marks
     * a debt.
     */
    static int shapeOf(long[] state) {
        return (int) (state[HEADER] & 0xFFFF);
    }

    private static boolean isReadable(LimitSpec spec, long[] state) {
        try {
            checkHeader(Catalogue.of(spec), spec, state);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    private static void checkHeader(Algorithm algorithm, LimitSpec spec, long[] state) {
        int found = algorithmIdOf(state);
        if (found < 0) {
            throw new IllegalStateException("the entry under this key is not Sluice limiter state (" + state.length
                    + " words); refusing to overwrite it for a " + spec.algorithm() + " limiter");
        }
        int version = layoutOf(state);
        if (!algorithm.readsStateOf(found) || !algorithm.reads(version)) {
            throw new IllegalStateException("the entry under this key holds " + name(found) + " state (layout "
                    + version + "), not " + spec.algorithm() + " (layout " + algorithm.layoutVersion()
                    + "); give this limiter its own key, or delete the entry to start over");
        }
        if (!algorithm.isWellFormed(state)) {
            throw new IllegalStateException("the entry under this key holds malformed " + name(found) + " state ("
                    + state.length + " words, shape " + shapeOf(state) + "); delete the entry to start over");
        }
        algorithm.checkShape(spec, state);
    }

    static String name(int algorithmId) {
        Algorithm algorithm = Catalogue.withId(algorithmId);
        return algorithm != null ? algorithm.description().name() : "unknown algorithm " + algorithmId;
    }

    /** {@code ceil(a / b)} for {@code a >= 0, b > 0}. */
    static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
