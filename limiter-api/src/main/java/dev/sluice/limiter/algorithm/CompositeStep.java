package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;

/**
 * Several rate limits in one step ({@link LimitSpec.AllOf}). State: after the header, for each component in
 * order its length in words (0: absent) and its own state, header included, so each component keeps its own
 * staleness rule and a component of another algorithm at a position is refused by that component's header.
 * The composite's shape word is its component count.
 *
 * <p>Every component's step runs on its own state at the same time; the request is granted only if all
 * grant, and then every component's new state is kept; otherwise nothing changes. {@code retryAfter} is the
 * latest among the refusing components': each component's is the earliest instant it grants the same
 * request if no one else asks, and a rate component never allows less later than sooner, so at that instant
 * every component grants, and at no earlier one does the latest refuser.
 */
public final class CompositeStep implements Algorithm {
    /** Its state id. */
    static final int ID = 8;
    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.ALL_OF, LimitSpec.AllOf.class)
            .label("composite")
            .summary("granted only if every component grants, then taken from all; a refusal takes nothing")
            .composite()
            .build();

    /** For the service loader. */
    public CompositeStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        return step((LimitSpec.AllOf) spec, state, now, permits);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        return refund((LimitSpec.AllOf) spec, state, now, permits, at);
    }

    @Override
    public boolean isWellFormed(long[] state) {
        int components = Algorithms.shapeOf(state);
        return components >= 2 && components <= LimitSpec.AllOf.MAX_COMPONENTS && isWellFormed(state, components);
    }

    /** Composites of the same component count: each component merged on its own. */
    @Override
    public long[] merge(long[] a, long[] b) {
        int n = Algorithms.shapeOf(a);
        if (!isWellFormed(a, n) || !isWellFormed(b, n)) {
            return a[LAST_NOW] > b[LAST_NOW] ? a : b;
        }
        long[][] pa = parts(a, n);
        long[][] pb = parts(b, n);
        long[][] merged = new long[n][];
        boolean allA = true;
        boolean allB = true;
        for (int i = 0; i < n; i++) {
            merged[i] = StateMerge.merge(pa[i], pb[i]);
            allA &= merged[i] == pa[i];
            allB &= merged[i] == pb[i];
        }
        if (allA && a[EXPIRES_AT] >= b[EXPIRES_AT]) {
            return a;
        }
        if (allB && b[EXPIRES_AT] >= a[EXPIRES_AT]) {
            return b;
        }
        return join(a[HEADER], Math.max(a[LAST_NOW], b[LAST_NOW]), Math.max(a[EXPIRES_AT], b[EXPIRES_AT]),
                merged);
    }

    @Override
    public void checkShape(LimitSpec spec, long[] state) {
        int components = ((LimitSpec.AllOf) spec).components().size();
        if (Algorithms.shapeOf(state) != components) {
            throw new IllegalStateException("the entry under this key holds a composite of " + Algorithms.shapeOf(state)
                    + " components, not " + components + "; give this limiter its own key, or delete the entry to"
                    + " start over");
        }
    }

    static Verdict step(LimitSpec.AllOf spec, long[] state, long now, long permits) {
        int n = spec.components().size();
        long[][] parts = parts(state, n);
        Verdict[] v = new Verdict[n];
        boolean all = true;
        long remaining = Long.MAX_VALUE;
        long retryAfter = 0;
        long resetAfter = 0;
        for (int i = 0; i < n; i++) {
            v[i] = Algorithms.acquire(spec.components().get(i), parts[i], now, permits);
            remaining = Math.min(remaining, v[i].remaining());
            resetAfter = Math.max(resetAfter, v[i].resetAfterMillis());
            if (!v[i].granted()) {
                all = false;
                retryAfter = Math.max(retryAfter, v[i].retryAfterMillis());
            }
        }
        if (!all || permits == 0) {
            long[] kept = kept(spec, state, parts, now);
            long keptTtl = kept == state ? resetAfter : kept[EXPIRES_AT] - now;
            return all ? Verdict.granted(remaining, spec.limit(), resetAfter, 0, keptTtl, kept)
                    : Verdict.refused(remaining, spec.limit(), retryAfter, resetAfter, keptTtl, kept);
        }
        long ttl = 0;
        long[][] next = new long[n][];
        for (int i = 0; i < n; i++) {
            // A component whose step left no state, or none with time left, is stored as absent.
            next[i] = v[i].state() != null && v[i].ttlMillis() > 0 ? v[i].state() : null;
            if (next[i] != null) {
                ttl = Math.max(ttl, v[i].ttlMillis());
            }
        }
        long[] updated = join(header(ID, n), now, now + ttl, next);
        return Verdict.granted(remaining, spec.limit(), resetAfter, now, ttl, updated);
    }

    /**
     * The state a decision that takes nothing leaves: each component as its own such decision leaves it (a
     * component written under another spec moved to this one's expiry), or {@code state} itself when none moved.
     */
    private static long[] kept(LimitSpec.AllOf spec, long[] state, long[][] parts, long now) {
        if (state == null) {
            return null;
        }
        long[][] next = null;
        for (int i = 0; i < parts.length; i++) {
            Verdict probe = Algorithms.acquire(spec.components().get(i), parts[i], now, 0);
            if (probe.stateChanged(parts[i])) {
                if (next == null) {
                    next = parts.clone();
                }
                next[i] = probe.state();
            }
        }
        if (next == null) {
            return state;
        }
        long expiresAt = state[EXPIRES_AT];
        for (long[] p : next) {
            if (p != null) {
                expiresAt = Math.max(expiresAt, p[EXPIRES_AT]);
            }
        }
        return join(state[HEADER], now, expiresAt, next);
    }

    /**
     * The state of a fresh composite whose every component was left with {@code min(remaining, its limit)} at
     * {@code now}, or {@code null} when every component is full.
     */
    static long[] freshWith(LimitSpec.AllOf spec, long now, long remaining) {
        int n = spec.components().size();
        long[][] parts = new long[n][];
        long expiresAt = now;
        for (int i = 0; i < n; i++) {
            LimitSpec component = spec.components().get(i);
            long take = component.limit() - Math.min(remaining, component.limit());
            parts[i] = take == 0 ? null : Inspection.fresh(component, now, take);
            if (parts[i] != null) {
                expiresAt = Math.max(expiresAt, parts[i][EXPIRES_AT]);
            }
        }
        return expiresAt == now ? null : join(header(ID, n), now, expiresAt, parts);
    }

    /** Each component gives back the grant at {@code at} by its own rule (components match by position). */
    static long[] refund(LimitSpec.AllOf spec, long[] state, long now, long permits, long at) {
        int n = spec.components().size();
        long[][] parts = parts(state, n);
        boolean changed = false;
        for (int i = 0; i < n; i++) {
            Verdict v = Algorithms.step(spec.components().get(i), parts[i], now, Op.REFUND, permits, at);
            if (v.stateChanged(parts[i])) {
                parts[i] = v.ttlMillis() > 0 ? v.state() : null;
                changed = true;
            }
        }
        return changed ? join(state[HEADER], now, state[EXPIRES_AT], parts) : state;
    }

    /** Each component's state (null when absent), or all absent for no state. */
    static long[][] parts(long[] state, int n) {
        long[][] parts = new long[n][];
        if (state == null) {
            return parts;
        }
        int at = HEADER_WORDS;
        for (int i = 0; i < n; i++) {
            int len = (int) state[at++];
            if (len > 0) {
                parts[i] = java.util.Arrays.copyOfRange(state, at, at + len);
                at += len;
            }
        }
        return parts;
    }

    /** Whether a composite state of {@code n} components is well formed: lengths that add up exactly. */
    static boolean isWellFormed(long[] state, int n) {
        int at = HEADER_WORDS;
        for (int i = 0; i < n; i++) {
            if (at >= state.length) {
                return false;
            }
            long len = state[at++];
            if (len < 0 || len > state.length - at || (len > 0 && len < HEADER_WORDS)) {
                return false;
            }
            at += (int) len;
        }
        return at == state.length;
    }

    /** Reassembles a composite state from its parts (null: absent), with the given header words. */
    static long[] join(long header, long lastNow, long expiresAt, long[][] parts) {
        int length = HEADER_WORDS;
        for (long[] p : parts) {
            length += 1 + (p == null ? 0 : p.length);
        }
        long[] out = new long[length];
        out[0] = header;
        out[LAST_NOW] = lastNow;
        out[EXPIRES_AT] = expiresAt;
        int at = HEADER_WORDS;
        for (long[] p : parts) {
            int len = p == null ? 0 : p.length;
            out[at++] = len;
            if (len > 0) {
                System.arraycopy(p, 0, out, at, len);
                at += len;
            }
        }
        return out;
    }
}
