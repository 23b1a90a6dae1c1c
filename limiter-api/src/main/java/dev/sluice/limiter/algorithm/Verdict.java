package dev.sluice.limiter.algorithm;

import java.util.Arrays;

/**
 * The outcome of one algorithm step: the decision, what a caller needs to act on it, and the state to
 * store. Immutable.
 *
 * <p>Only the decision fields travel back to a caller; {@link #state()} is for the backend that ran the
 * step: when it is the very instance the step was given, nothing changed and nothing must be written
 * (so a refusal costs no write and no backup); when it is {@code null} the entry should be removed;
 * otherwise it is to be stored with a time-to-live of {@link #ttlMillis()}.
 */
public final class Verdict {
    /** {@link #retryAfterMillis()} when no retry time exists (a grant, or a concurrency refusal). */
    public static final long NO_RETRY = -1;

    private final boolean granted;
    private final long remaining;
    private final long limit;
    private final long retryAfterMillis;
    private final long resetAfterMillis;
    private final long token;
    private final long ttlMillis;
    private final long[] state;

    private Verdict(boolean granted, long remaining, long limit, long retryAfterMillis, long resetAfterMillis,
            long token, long ttlMillis, long[] state) {
        this.granted = granted;
        this.remaining = remaining;
        this.limit = limit;
        this.retryAfterMillis = retryAfterMillis;
        this.resetAfterMillis = resetAfterMillis;
        this.token = token;
        this.ttlMillis = ttlMillis;
        this.state = state;
    }

    /**
     * A step's grant of a rate limit (or a probe's "available"): no retry time.
     *
     * @param grantedAtMillis the decision's time on the deciding node's clock when the grant consumed permits
     *     (what {@link Op#REFUND} needs), else 0; read back as {@link #token()}
     * @param ttlMillis how long {@code state} still matters
     * @param state the state to store; see the class comment
     */
    public static Verdict granted(long remaining, long limit, long resetAfterMillis, long grantedAtMillis,
            long ttlMillis, long[] state) {
        return new Verdict(true, remaining, limit, NO_RETRY, resetAfterMillis, grantedAtMillis, ttlMillis, state);
    }

    /**
     * A step's refusal: nothing consumed, no token.
     *
     * @param retryAfterMillis when the same request could succeed if no one else asked, or {@link #NO_RETRY}
     */
    public static Verdict refused(long remaining, long limit, long retryAfterMillis, long resetAfterMillis,
            long ttlMillis, long[] state) {
        return new Verdict(false, remaining, limit, retryAfterMillis, resetAfterMillis, 0, ttlMillis, state);
    }

    /**
     * A concurrency step's decision: never a retry time (a lease frees when its holder releases it).
     *
     * @param leaseToken for a granted lease, its lease id and fencing token; else 0; read back as {@link #token()}
     */
    public static Verdict lease(boolean granted, long remaining, long limit, long resetAfterMillis, long leaseToken,
            long ttlMillis, long[] state) {
        return new Verdict(granted, remaining, limit, NO_RETRY, resetAfterMillis, leaseToken, ttlMillis, state);
    }

    /** The same decision with another state to store, for {@code ttlMillis}. */
    public Verdict withState(long[] state, long ttlMillis) {
        return new Verdict(granted, remaining, limit, retryAfterMillis, resetAfterMillis, token, ttlMillis, state);
    }

    /** A verdict as received by a caller, without state: the decision's words ({@link #toWords()}) in order. */
    public static Verdict of(boolean granted, long remaining, long limit, long retryAfterMillis,
            long resetAfterMillis, long token) {
        return new Verdict(granted, remaining, limit, retryAfterMillis, resetAfterMillis, token, 0, null);
    }

    public boolean granted() { return granted; }

    /** Permits still available right after this decision. */
    public long remaining() { return remaining; }

    public long limit() { return limit; }

    /** Milliseconds until the same request could succeed if no one else asked, or {@link #NO_RETRY}. */
    public long retryAfterMillis() { return retryAfterMillis; }

    /** Milliseconds until the limiter is back to its full capacity if no one else asks. */
    public long resetAfterMillis() { return resetAfterMillis; }

    /**
     * For a granted concurrency lease, its lease id and fencing token; for any other grant that consumed
     * permits, the time of the decision on the deciding node's clock (what {@link Op#REFUND} needs); else 0.
     */
    public long token() { return token; }

    /** How long the stored state still matters; only meaningful when the state changed. */
    public long ttlMillis() { return ttlMillis; }

    /** The state after the step; see the class comment for how a backend treats it. */
    public long[] state() { return state; }

    /** True when the state must be written (or removed, when {@link #state()} is null). */
    public boolean stateChanged(long[] before) { return state != before; }

    /** Length of {@link #toWords()}. */
    public static final int WORDS = 6;

    /**
     * The decision (no state) as {@value #WORDS} longs: the one wire form of a verdict, for backends that
     * ship it as words.
     */
    public long[] toWords() {
        return new long[] {granted ? 1 : 0, remaining, limit, retryAfterMillis, resetAfterMillis, token};
    }

    /** The decision {@link #toWords()} wrote. */
    public static Verdict fromWords(long[] words) {
        return of(words[0] == 1, words[1], words[2], words[3], words[4], words[5]);
    }

    /** The same decision without the state, as sent back to a caller. */
    public Verdict withoutState() {
        return state == null && ttlMillis == 0 ? this
                : new Verdict(granted, remaining, limit, retryAfterMillis, resetAfterMillis, token, 0, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Verdict v && granted == v.granted && remaining == v.remaining && limit == v.limit
                && retryAfterMillis == v.retryAfterMillis && resetAfterMillis == v.resetAfterMillis
                && token == v.token;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(new long[] {granted ? 1 : 0, remaining, limit, retryAfterMillis, resetAfterMillis, token});
    }

    @Override
    public String toString() {
        return (granted ? "granted" : "refused") + "[remaining=" + remaining + ", limit=" + limit
                + (retryAfterMillis >= 0 ? ", retryAfter=" + retryAfterMillis + "ms" : "")
                + ", resetAfter=" + resetAfterMillis + "ms" + (token != 0 ? ", token=" + token : "") + "]";
    }
}
