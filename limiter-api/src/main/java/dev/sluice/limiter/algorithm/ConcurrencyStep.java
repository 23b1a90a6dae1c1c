package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.util.Map;
import java.util.HashMap;
import java.time.Duration;

/**
 * Leases that hold permits until released or expired. State (layout 3, {@link Leases}): the last token issued and
 * the leases, each a token, permits, an expiry and a nonce, in expiry order. An acquisition reads only the leases
 * that expired and the nonces, copies the rest and appends one, so its cost hardly grows with the leases held;
 * renewal and release rewrite them. Layout 2 (one {@code (token, permits, expiresAt, nonce)} quadruple per lease)
 * and layout 1 (triples, no nonce, read as nonce 0) are still read and written back as layout 3 by the next step
 * that changes them.
 *
 * <p>A lease's token is its id and a fencing token: tokens increase per key. Since idle state expires
 * and takes the counter with it, a new token is at least {@code now << 20}: the counter can only outrun
 * that floor by issuing over a million leases per millisecond, and an expired state has been idle for at
 * least the lease duration (30 ms or more), so tokens keep increasing across expiry. Releasing the last
 * lease keeps the (then empty) state for one more lease duration for the same reason.
 *
 * <p>An acquisition's {@code leaseId} is a random nonce from the caller, which does two things. Its low 19
 * bits fill the low bits of the token floor: two sides of a split cluster that grant a lease on the same
 * key in the same millisecond then almost surely issue different tokens, so the merge's union by token
 * keeps both. And the lease keeps the whole nonce, which makes an acquisition idempotent: a retry carries
 * the very same request, so when its first run was granted and only the answer was lost (an
 * {@code IndeterminateOperationStateException}, an owner that left after running it, Hazelcast's own
 * at-least-once resend), the retry finds the live lease with its nonce and permits and is answered with
 * it, changing nothing, instead of taking a second lease while the first is orphaned until it expires.
 * Nonce 0 means none (never matched); the runtime never sends it. A false match needs two live
 * acquisitions of one key with the same 64-bit random nonce. What idempotency cannot cover is a caller
 * that stopped waiting before its grant arrived: that lease is never renewed, so it holds its permits
 * for one lease duration at most, and the limit is never exceeded meanwhile.
 *
 * <p>Fencing is unchanged by a retry: it issues no token, and the token it returns was issued before
 * every later one, exactly as if the lost answer had arrived.
 */
public final class ConcurrencyStep implements Algorithm {
    /** Its state id. */
    static final int ID = 7;
    /**
     * The layout version: 3 keeps the leases in expiry order as a byte stream beside their nonces ({@link Leases});
     * layouts 1 (no nonces) and 2 (four words a lease) are still read and written back as 3.
     */
    static final int LAYOUT_VERSION = 3;
    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.CONCURRENCY, LimitSpec.Concurrency.class)
            .summary("the permits of live leases add up to at most the limit; a lease renews until released, and"
                    + " expires if its holder is gone")
            .parameters(Parameters.permitLimit("permits held at once", LimitSpec.Concurrency.MAX_CONCURRENCY_LIMIT),
                    AlgorithmDescription.Parameter.duration("leaseDuration", "lease-duration",
                            Duration.ofMillis(LimitSpec.Concurrency.MIN_LEASE_MILLIS), LimitSpec.MAX_DURATION,
                            "how long a lease lasts unless renewed")
                            .withDefault(LimitSpec.DEFAULT_LEASE_DURATION.toMillis()))
            .factory(v -> new LimitSpec.Concurrency(v[0], v[1]),
                    s -> new long[] {s.permitLimit(), s.leaseDurationMillis()})
            .concurrency()
            .build();

    static final int TOKEN_TIME_SHIFT = 20;
    /** A token's bits below its millisecond. */
    static final long TOKEN_LOW = (1L << TOKEN_TIME_SHIFT) - 1;
    /** Low bits of the token floor taken from the caller's nonce (below half the per-millisecond room). */
    static final long NONCE_MASK = (1L << (TOKEN_TIME_SHIFT - 1)) - 1;
    /** Layout 2's last token; layouts 1 and 2 keep their leases after it. */
    static final int LEGACY_LAST_TOKEN = HEADER_WORDS;
    static final int LEGACY_LEASES = HEADER_WORDS + 1;
    /** Words per lease in layout 2: token, permits, expiry, nonce. */
    static final int LAYOUT_2_LEASE = 4;
    /** Words per lease in layout 1: token, permits, expiry. */
    static final int LAYOUT_1_LEASE = 3;
    /** The layout before nonces were kept. */
    static final int LAYOUT_1 = 1;
    /** The layout of one four-word quadruple per lease. */
    static final int LAYOUT_2 = 2;

    /** For the service loader. */
    public ConcurrencyStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        return step((LimitSpec.Concurrency) spec, state, now, op, permits, leaseId);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        throw new UnsupportedOperationException("a concurrency lease is given back by RELEASE");
    }

    @Override
    public boolean isWellFormed(long[] state) {
        return hasValidLength(state);
    }

    /**
     * The union of two concurrency states' leases by token, in layout 3 (a layout 1 lease is read with nonce 0). A
     * lease on both sides keeps its later expiry, the larger permits and its known nonce.
     */
    @Override
    public long[] merge(long[] original, long[] other) {
        long[] a = upgradeLeases(original);
        long[] b = upgradeLeases(other);
        Leases mine = Leases.decode(a);
        Leases theirs = Leases.decode(b);
        Leases merged = new Leases(mine.size + theirs.size + 1);
        Map<Long, Integer> slotOfToken = new HashMap<>();
        for (int i = 0; i < mine.size; i++) {
            slotOfToken.put(mine.tokens[i], merged.size);
            merged.add(mine.tokens[i], mine.permits[i], mine.expiries[i], mine.nonces[i]);
        }
        boolean changed = false;
        for (int i = 0; i < theirs.size; i++) {
            Integer slot = slotOfToken.get(theirs.tokens[i]);
            if (slot == null) {
                merged.add(theirs.tokens[i], theirs.permits[i], theirs.expiries[i], theirs.nonces[i]);
                changed = true;
                continue;
            }
            if (theirs.expiries[i] > merged.expiries[slot]) {
                merged.expiries[slot] = theirs.expiries[i];
                merged.permits[slot] = Math.max(merged.permits[slot], theirs.permits[i]);
                changed = true;
            }
            if (merged.nonces[slot] == 0 && theirs.nonces[i] != 0) {
                merged.nonces[slot] = theirs.nonces[i];
                changed = true;
            }
        }
        long lastToken = Math.max(a[Leases.LAST_TOKEN], b[Leases.LAST_TOKEN]);
        long lastNow = Math.max(a[LAST_NOW], b[LAST_NOW]);
        long expiresAt = Math.max(a[EXPIRES_AT], b[EXPIRES_AT]);
        if (!changed && lastToken == a[Leases.LAST_TOKEN] && lastNow == a[LAST_NOW] && expiresAt == a[EXPIRES_AT]) {
            return original; // in its own layout: the next step that changes it writes layout 3
        }
        merged.sortByExpiry();
        return merged.encode(lastNow, expiresAt, lastToken, latestAge(merged));
    }

    @Override
    public int layoutVersion() {
        return LAYOUT_VERSION;
    }

    @Override
    public boolean reads(int layout) {
        return isReadable(layout);
    }

    @Override
    public long[] upgrade(long[] state) {
        return upgradeLeases(state);
    }

    @Override
    public boolean isCompact() {
        return true;
    }

    /** True if {@code layout} is a concurrency layout this code reads (1 to 3). */
    static boolean isReadable(int layout) {
        return layout == LAYOUT_1 || layout == LAYOUT_2 || layout == LAYOUT_VERSION;
    }

    /** Whether a state's words fit its layout, so no step reads past their end. */
    static boolean hasValidLength(long[] state) {
        int layout = Algorithms.layoutOf(state);
        if (layout == LAYOUT_VERSION) {
            return Leases.isWellFormed(state);
        }
        int perLease = layout == LAYOUT_1 ? LAYOUT_1_LEASE : LAYOUT_2_LEASE;
        return state.length >= LEGACY_LEASES && (state.length - LEGACY_LEASES) % perLease == 0;
    }

    /**
     * Layout 1 or 2 state as layout 3: the same leases (a layout 1 lease with nonce 0, unknown), ordered by
     * expiry, records counting from the age of the latest one; layout 3 state as it is.
     */
    static long[] upgradeLeases(long[] state) {
        int layout = Algorithms.layoutOf(state);
        if (layout == LAYOUT_VERSION) {
            return state;
        }
        int perLease = layout == LAYOUT_1 ? LAYOUT_1_LEASE : LAYOUT_2_LEASE;
        int count = (state.length - LEGACY_LEASES) / perLease;
        Leases leases = new Leases(count + 1);
        for (int i = LEGACY_LEASES; i < state.length; i += perLease) {
            leases.add(state[i], state[i + 1], state[i + 2], perLease == LAYOUT_2_LEASE ? state[i + 3] : 0);
        }
        leases.sortByExpiry();
        return leases.encode(state[LAST_NOW], state[EXPIRES_AT], state[LEGACY_LAST_TOKEN], latestAge(leases));
    }

    /** How long before its expiry the latest lease was issued: the lease duration most records were written under. */
    static long latestAge(Leases leases) {
        if (leases.size == 0) {
            return 0;
        }
        int last = leases.size - 1;
        return leases.expiries[last] - (leases.tokens[last] >>> TOKEN_TIME_SHIFT);
    }

    /**
     * Live layout 3 {@code state} with every lease dropped at {@code now}: kept for one lease duration with its
     * last token, so tokens issued afterwards still exceed every token issued before (see the class comment).
     */
    static long[] withoutLeases(LimitSpec.Concurrency spec, long[] state, long now) {
        long duration = spec.leaseDurationMillis();
        return new Leases(0).encode(now, now + duration, state[Leases.LAST_TOKEN], duration);
    }

    /** Runs one step on layout 3 state (or none); {@link Algorithms#step} upgrades layouts 1 and 2 first. */
    static Verdict step(LimitSpec.Concurrency spec, long[] state, long now, Op op, long permits, long leaseId) {
        long limit = spec.permitLimit();
        if (state == null) {
            if (op != Op.ACQUIRE) {
                return Verdict.lease(false, limit, limit, 0, 0, 0, null);
            }
            return acquire(spec, null, now, permits, leaseId);
        }
        if (op == Op.ACQUIRE) {
            return acquire(spec, state, now, permits, leaseId);
        }
        Leases.Reader reader = new Leases.Reader(state);
        reader.skipExpired(now);
        int dropped = reader.index;
        long held = state[Leases.HELD] - reader.passedPermits;
        int count = Leases.count(state);
        long resetAfter = (count > dropped ? state[Leases.TAIL_EXPIRY] : now) - now;
        Leases.Reader scan = new Leases.Reader(state);
        int found = -1;
        int recordStart = 0;
        long previousExpiry = 0;
        while (scan.hasNext()) {
            recordStart = scan.pos;
            previousExpiry = scan.expiry;
            scan.next();
            if (scan.token == leaseId && scan.index > dropped) {
                found = scan.index - 1;
                break;
            }
        }
        if (found < 0) {
            return Verdict.lease(false, Math.max(0, limit - held), limit, resetAfter, 0, resetAfter, state);
        }
        long leasePermits = scan.permits;
        long leaseNonce = scan.nonce;
        long duration = spec.leaseDurationMillis();
        if (op == Op.RELEASE) {
            long[] updated = Leases.without(state, reader, dropped, scan, recordStart, previousExpiry);
            // Even with no lease left, the state keeps the last token for a lease duration, so the next token
            // still exceeds it while the clock has not moved on (see the class comment).
            return finish(updated, now, now, limit - held + leasePermits, limit, leaseId, duration);
        }
        long renewed = now + duration;
        long[] updated;
        if (state[Leases.AGE] == duration && renewed >= state[Leases.TAIL_EXPIRY]) {
            long[] rest = Leases.without(state, reader, dropped, scan, recordStart, previousExpiry);
            updated = Leases.append(rest, new Leases.Reader(rest), 0, leaseId, leasePermits, renewed, leaseNonce);
        } else {
            Leases leases = Leases.decode(state);
            dropExpired(leases, now);
            int at = leases.indexOf(leaseId);
            leases.removeAt(at);
            leases.add(leaseId, leasePermits, renewed, leaseNonce);
            leases.sortByExpiry();
            updated = leases.encode(0, 0, state[Leases.LAST_TOKEN], duration);
        }
        // A renewal under a shortened lease duration moves its lease's expiry earlier; the state still lives as
        // long as the latest expiry before it did.
        return finish(updated, now, now + resetAfter, limit - held, limit, leaseId, 0);
    }

    private static Verdict acquire(LimitSpec.Concurrency spec, long[] state, long now, long permits, long leaseId) {
        long limit = spec.permitLimit();
        long lastToken = 0;
        long held = 0;
        int dropped = 0;
        int count = 0;
        Leases.Reader reader = null;
        if (state != null) {
            lastToken = state[Leases.LAST_TOKEN];
            count = Leases.count(state);
            reader = new Leases.Reader(state);
            reader.skipExpired(now);
            dropped = reader.index;
            held = state[Leases.HELD] - reader.passedPermits;
        }
        int live = count - dropped;
        long latestExpiry = live > 0 ? state[Leases.TAIL_EXPIRY] : now;
        long resetAfter = latestExpiry - now;
        if (leaseId != 0 && live > 0) {
            for (int i = dropped; i < count; i++) {
                if (state[Leases.NONCES + i] == leaseId) {
                    Verdict retry = retried(state, i, now, permits, limit, held, resetAfter);
                    if (retry != null) {
                        return retry;
                    }
                }
            }
        }
        long asked = Math.max(permits, 1);
        if (held + asked > limit) {
            return Verdict.lease(false, Math.max(0, limit - held), limit, resetAfter, 0, resetAfter, state);
        }
        if (permits == 0) {
            return Verdict.lease(true, limit - held, limit, resetAfter, 0, resetAfter, state);
        }
        long token = Math.max(lastToken + 1, (now << TOKEN_TIME_SHIFT) | (leaseId & NONCE_MASK));
        long expiry = now + spec.leaseDurationMillis();
        long[] updated;
        if (state != null && state[Leases.AGE] == spec.leaseDurationMillis() && (live == 0 || expiry >= latestExpiry)) {
            updated = Leases.append(state, reader, dropped, token, permits, expiry, leaseId);
        } else {
            Leases leases = state == null ? new Leases(1) : Leases.decode(state);
            if (state != null) {
                dropExpired(leases, now);
            }
            leases.add(token, permits, expiry, leaseId);
            leases.sortByExpiry();
            updated = leases.encode(0, 0, 0, spec.leaseDurationMillis());
        }
        updated[Leases.LAST_TOKEN] = token;
        return finish(updated, now, now, limit - held - permits, limit, token, 0);
    }

    /**
     * The answer to a retry of the acquisition that was granted the live lease at {@code index} (its nonce is the
     * request's), or {@code null} when that lease holds other permits than asked (not this request's lease).
     */
    private static Verdict retried(long[] state, int index, long now, long permits, long limit, long held,
            long resetAfter) {
        Leases.Reader reader = new Leases.Reader(state);
        while (reader.index <= index) {
            reader.next();
        }
        if (reader.permits != permits) {
            return null;
        }
        return Verdict.lease(true, Math.max(0, limit - held), limit, resetAfter, reader.token, resetAfter, state);
    }

    /** Drops the leases that expired by {@code now}: the first ones, in expiry order. */
    private static void dropExpired(Leases leases, long now) {
        int expired = 0;
        while (expired < leases.size && leases.expiries[expired] <= now) {
            expired++;
        }
        if (expired > 0) {
            int kept = leases.size - expired;
            System.arraycopy(leases.tokens, expired, leases.tokens, 0, kept);
            System.arraycopy(leases.permits, expired, leases.permits, 0, kept);
            System.arraycopy(leases.expiries, expired, leases.expiries, 0, kept);
            System.arraycopy(leases.nonces, expired, leases.nonces, 0, kept);
            leases.size = kept;
        }
    }

    /**
     * A granted verdict on {@code updated}, whose leases are in expiry order; it resets at its latest lease's expiry,
     * or at {@code resetFloor} if that is later, and lives for at least {@code minTtl}.
     */
    private static Verdict finish(long[] updated, long now, long resetFloor, long remaining, long limit, long token,
            long minTtl) {
        long latest = Math.max(resetFloor, Leases.count(updated) == 0 ? now : updated[Leases.TAIL_EXPIRY]);
        long resetAfter = latest - now;
        long ttl = Math.max(resetAfter, minTtl);
        updated[LAST_NOW] = now;
        updated[EXPIRES_AT] = now + ttl;
        return Verdict.lease(true, remaining, limit, resetAfter, token, ttl, updated);
    }
}
