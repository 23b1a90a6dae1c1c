package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.util.Arrays;

/**
 * The permits a rate key owes: cost settled after the work ({@link Op#CHARGE}) beyond what its budget held when the
 * settlement landed. Kept by the dispatch, like the refund memory, so every algorithm has it without a step of its
 * own knowing: {@link Algorithms#step} hands the algorithm the state without it.
 *
 * <p><b>Repayment.</b> Every acquisition of a key that owes first pays from what the budget holds (an
 * acquisition of {@code min(owed, available)} by the algorithm's own rule, so the paid permits count in the
 * algorithm's window like any grant) and is refused while anything is still owed; a probe and a read show the
 * same without writing. A charge pays the same way: what the budget holds now is taken, the rest is owed.
 *
 * <p><b>The bound.</b> Every grant is made on a state that holds every cost settled before it (what was owed
 * included, since nothing is granted while anything is owed) and every reservation not yet settled. So the
 * algorithm's own bound holds for the costs it has recorded, and over any window the charged total (each
 * lease's real cost) exceeds the algorithm's limit by at most the extra cost, beyond their reservations, of the
 * leases that were still unsettled when that window's last grant was made; that excess is owed by the key and
 * paid from the budget that follows.
 *
 * <p><b>Budget produced while no one asks.</b> A budget at its full size produces nothing more, so a key that
 * stays idle would owe forever. Instead, each {@code R} (the time the algorithm takes to bring a drained budget
 * back to full, from a fresh key that took its whole limit at time 0) that passes after the budget is full again
 * pays {@code limit} of the debt, as the budget it owes is produced unused. The state is kept, with its debt, until
 * that has paid all of it: {@code keptUntil = anchor + ceil(owed / limit) * R}, where the anchor is when the
 * budget is full again; from then on the state reads as absent, exactly as a state whose debt is paid would.
 * Never sooner: a debt is never forgotten before the budget it owes would have been produced.
 *
 * <p>Layout: after the algorithm's words (and before any refund memory), {@code (owed, anchor, keptUntil)}, marked
 * by {@link #FLAG} in the header's shape word. A state without a debt has no trailer and costs nothing.
 */
final class Debt {
    /** Bit 31 of the header's shape word: the state carries a debt trailer. */
    static final long FLAG = 1L << 31;
    private static final int WORDS = 3;
    private static final int OWED = 0;
    private static final int ANCHOR = 1;
    private static final int KEPT_UNTIL = 2;

    private Debt() {}

    /** Whether a state (without refund memory) carries a debt trailer. */
    static boolean has(long[] state) {
        int id = Algorithms.algorithmIdOf(state);
        return id >= 0 && (state[HEADER] & FLAG) != 0 && id != ConcurrencyStep.ID
                && state.length >= HEADER_WORDS + WORDS;
    }

    /** The permits owed by a state (without refund memory), as last written; 0 for none. */
    static long owed(long[] state) {
        return has(state) ? state[state.length - WORDS + OWED] : 0;
    }

    /** Until when a state with a debt is kept; {@link Long#MIN_VALUE} for none. */
    static long keptUntil(long[] state) {
        return has(state) ? state[state.length - WORDS + KEPT_UNTIL] : Long.MIN_VALUE;
    }

    /**
     * The read of a key that owes ({@link Op#INSPECT}): as {@link Inspection#inspect}, but its remaining is what an
     * acquisition would find after paying, negative by what would still be owed, and its reset-after counts the
     * debt's time. {@code stored} is answered as the state: nothing changes.
     */
    static Verdict inspect(LimitSpec spec, long[] stored, long[] withDebt, long now) {
        Verdict read = Inspection.inspect(spec, withDebt, without(withDebt), now);
        Verdict owing = new Owing(spec, withDebt, now).probe();
        return Verdict.of(owing.granted(), owing.remaining(), owing.limit(), owing.retryAfterMillis(),
                owing.resetAfterMillis(), Inspection.timeOf(read.token()) | Inspection.OWN_STATE).withState(stored, 0);
    }

    /** The state without its debt trailer (the very instance when it has none). */
    static long[] without(long[] state) {
        if (!has(state)) {
            return state;
        }
        long[] core = Arrays.copyOf(state, state.length - WORDS);
        core[HEADER] &= ~FLAG;
        return core;
    }

    /** The trailer of a state, or {@code null} for none. */
    static long[] trailer(long[] state) {
        return has(state) ? Arrays.copyOfRange(state, state.length - WORDS, state.length) : null;
    }

    /** {@code core} with {@code trailer} after it ({@code core} itself for none). */
    static long[] attach(long[] core, long[] trailer) {
        if (trailer == null) {
            return core;
        }
        long[] state = Arrays.copyOf(core, core.length + WORDS);
        System.arraycopy(trailer, 0, state, core.length, WORDS);
        state[HEADER] = core[HEADER] | FLAG;
        return state;
    }

    /** Of two copies' trailers, the larger debt, kept as long as either kept it ({@code null} for none). */
    static long[] larger(long[] a, long[] b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return new long[] {Math.max(a[OWED], b[OWED]), Math.max(a[ANCHOR], b[ANCHOR]),
                Math.max(a[KEPT_UNTIL], b[KEPT_UNTIL])};
    }

    /**
     * The time {@code R} the spec takes to bring a drained budget back to full: the lifetime of the state of a fresh
     * key that took its whole limit at time 0 (windows and segments are aligned to the epoch there).
     */
    static long refillMillis(LimitSpec spec) {
        long[] drained = Inspection.fresh(spec, 0, spec.limit());
        return drained == null ? 1 : Math.max(1, drained[EXPIRES_AT]);
    }

    /** A debt on state of a concurrency limiter, which holds leases, not costs. */
    static IllegalArgumentException notRate(LimitSpec spec) {
        return new IllegalArgumentException(Op.CHARGE + " applies to rate limiters only, not " + spec.algorithm()
                + "; a concurrency lease holds permits for a time, and is released, not settled");
    }

    /**
     * One step of a key that owes, or a charge: see the class comment. {@code stored} is the state without refund
     * memory; the verdict's state carries the new debt (the very instance when nothing changed).
     */
    static Verdict decide(LimitSpec spec, long[] stored, long nowMillis, Op op, long permits, long leaseId) {
        if (Catalogue.of(spec).description().kind() != AlgorithmDescription.Kind.RATE
                && Catalogue.of(spec).description().kind() != AlgorithmDescription.Kind.COMPOSITE) {
            if (op == Op.CHARGE) {
                throw notRate(spec);
            }
            return Algorithms.decide(spec, without(stored), nowMillis, op, permits, leaseId);
        }
        Owing owing = new Owing(spec, stored, nowMillis);
        if (op == Op.REFUND) {
            Verdict v = Algorithms.decide(spec, owing.core, nowMillis, op, permits, leaseId);
            return owing.finish(v, next(v, owing.core), owing.owed);
        }
        if (op == Op.ACQUIRE && permits == 0) {
            Verdict read = owing.probe();
            return Verdict.of(read.granted(), Math.max(0, read.remaining()), read.limit(), read.retryAfterMillis(),
                    read.resetAfterMillis(), 0).withState(stored, 0);
        }
        long due = owing.owed + (op == Op.CHARGE ? permits : 0);
        Paid paid = owing.pay(due);
        long left = due - paid.permits;
        if (op == Op.CHARGE || left > 0) {
            Verdict after = Algorithms.decide(spec, paid.core, nowMillis, Op.ACQUIRE, 0, 0);
            long remaining = left > 0 ? 0 : Math.max(0, after.remaining());
            long retry = left > 0 ? owing.retryAfter(paid.core, left + Math.max(permits, 1)) : Verdict.NO_RETRY;
            Verdict v = Verdict.of(left == 0, remaining, spec.limit(), retry, Math.max(0, after.resetAfterMillis()),
                    op == Op.CHARGE ? left : 0);
            return owing.finish(v, paid.core, left);
        }
        Verdict v = Algorithms.decide(spec, paid.core, nowMillis, op, permits, leaseId);
        return owing.finish(v, next(v, paid.core), 0);
    }

    /** The state a step left: its new state, {@code null} when nothing is left to keep, or {@code in} unchanged. */
    private static long[] next(Verdict v, long[] in) {
        if (!v.stateChanged(in)) {
            return in;
        }
        return v.ttlMillis() > 0 ? v.state() : null;
    }

    private record Paid(long[] core, long permits) {}

    /** A key's state and what it owes at one step's time, the budget produced unused since taken off. */
    private static final class Owing {
        final LimitSpec spec;
        final long[] stored;
        final long[] core;
        final long nowMillis;
        final long now;
        final long refill;
        final long owed;
        final long anchor;

        Owing(LimitSpec spec, long[] stored, long nowMillis) {
            this.spec = spec;
            this.stored = stored;
            this.core = without(stored);
            this.nowMillis = nowMillis;
            this.now = core == null ? nowMillis : Math.max(nowMillis, core[LAST_NOW]);
            long[] trailer = trailer(stored);
            if (trailer == null) {
                refill = 0;
                owed = 0;
                anchor = now;
                return;
            }
            refill = refillMillis(spec);
            long periods = now > trailer[ANCHOR] ? (now - trailer[ANCHOR]) / refill : 0;
            long produced = periods >= Long.MAX_VALUE / spec.limit() ? Long.MAX_VALUE : periods * spec.limit();
            owed = Math.max(0, trailer[OWED] - produced);
            anchor = trailer[ANCHOR] + periods * refill;
        }

        /** Pays {@code due} from what the budget holds now, by the algorithm's own acquisition. */
        Paid pay(long due) {
            if (due == 0) {
                return new Paid(core, 0);
            }
            Verdict probe = Algorithms.decide(spec, core, nowMillis, Op.ACQUIRE, 0, 0);
            long pay = Math.min(due, Math.max(0, probe.remaining()));
            if (pay > 0) {
                Verdict taken = Algorithms.decide(spec, core, nowMillis, Op.ACQUIRE, pay, 0);
                if (taken.granted()) {
                    return new Paid(next(taken, core), pay);
                }
            }
            return new Paid(core, 0);
        }

        /**
         * A probe (and a read): what an acquisition would find after paying, writing nothing. Its remaining is
         * what would be left after paying, negative by what would still be owed.
         */
        Verdict probe() {
            Verdict available = Algorithms.decide(spec, core, nowMillis, Op.ACQUIRE, 0, 0);
            long free = Math.max(0, available.remaining()) - owed;
            long left = Math.max(0, -free);
            long retry = free >= 1 ? Verdict.NO_RETRY : retryAfter(pay(owed).core, left + 1);
            return Verdict.of(free >= 1, free, spec.limit(), retry, resetAfter(core, owed), 0).withState(stored, 0);
        }

        /** Until {@code permits} are free on {@code paidCore} if no one else asks (at least that long when above the limit). */
        long retryAfter(long[] paidCore, long permits) {
            Verdict v = Algorithms.decide(spec, paidCore, nowMillis, Op.ACQUIRE, Math.min(spec.limit(), permits), 0);
            return v.granted() ? 0 : Math.max(0, v.retryAfterMillis());
        }

        /** Until the key is back to its full budget with {@code left} owed if no one asks. */
        long resetAfter(long[] after, long left) {
            Verdict probe = Algorithms.decide(spec, after, nowMillis, Op.ACQUIRE, 0, 0);
            return left == 0 ? probe.resetAfterMillis() : Math.max(probe.resetAfterMillis(), keptUntil(after, left) - now);
        }

        private long anchorAfter(long[] after) {
            return after != null && after[EXPIRES_AT] > now ? Math.max(anchor, after[EXPIRES_AT]) : anchor;
        }

        private long keptUntil(long[] after, long left) {
            long r = refill == 0 ? refillMillis(spec) : refill;
            long periods = Algorithms.ceilDiv(left, spec.limit());
            return anchorAfter(after) + (periods >= Long.MAX_VALUE / 2 / r ? Long.MAX_VALUE / 2 : periods * r);
        }

        /**
         * {@code v} answering for the state {@code after} (the algorithm's, or {@code null} for none) owing
         * {@code left}: the stored state itself when neither changed, else the new state with its trailer.
         */
        Verdict finish(Verdict v, long[] after, long left) {
            long[] t = trailer(stored);
            boolean same = after == core && (t == null ? left == 0 : left == t[OWED] && anchorAfter(after) == t[ANCHOR]);
            if (same) {
                return v.withState(stored, v.ttlMillis());
            }
            if (left == 0) {
                return after == null || after[EXPIRES_AT] <= now ? v.withState(null, 0)
                        : v.withState(after, after[EXPIRES_AT] - now);
            }
            long[] base = after;
            if (base == null) { // nothing of the algorithm's to keep but the debt: a state reading as a full budget
                base = core != null ? core.clone() : Inspection.fresh(spec, now, 1);
                base[LAST_NOW] = now;
                base[EXPIRES_AT] = now;
            }
            long until = keptUntil(base, left);
            long[] next = attach(base, new long[] {left, anchorAfter(base), until});
            Verdict answer = Verdict.of(v.granted(), v.remaining(), v.limit(), v.retryAfterMillis(),
                    Math.max(v.resetAfterMillis(), until - now), v.token());
            return answer.withState(next, until - now);
        }
    }
}
