package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import java.util.Arrays;

/**
 * Concurrency state in layout 3, and the leases it holds decoded into parallel arrays.
 *
 * <p>Words: the common header, then {@link #LAST_TOKEN}, {@link #HELD} (permits of the leases in the stream),
 * {@link #COUNT}, {@link #BASE_EXPIRY} (what the first lease's expiry counts from), {@link #TAIL_EXPIRY} (the last
 * lease's expiry, the latest), {@link #AGE} (the lease age records count from) and {@link #SPAN} (the stream's first
 * and end byte); then one word per lease with its acquisition nonce, and the stream, in the same order: by expiry,
 * oldest first. Each lease in the stream is a varint of its expiry after the previous one's, a varint of
 * {@code zigzag(expiry - tokenTime - age) << 2 | flags}, then its token's low bits when they are not the nonce's
 * (a token issued in a millisecond that had issued one already), then its permits when they are not 1. A lease
 * acquired under the current lease duration and never renewed takes two bytes when it expires less than 128 ms after
 * the one before it (three up to 16 s), beside its eight-byte nonce, instead of 32 bytes.
 *
 * <p>Order by expiry is what keeps steps cheap: the expired leases are the stream's first ones, so a step decodes
 * only those; an acquisition copies the rest word by word (the stream keeps its offset within a word, so nothing
 * is shifted) and appends one lease; and the nonces, a plain word each, are compared without decoding anything.
 * Renewal and release find their lease by its token, decoding the leases once, and rewrite only its successor
 * ({@link #without}); a merge, an upgrade and an acquisition or renewal under a changed lease duration rewrite all
 * the leases.
 */
final class Leases {
    static final int LAST_TOKEN = HEADER_WORDS;
    static final int HELD = HEADER_WORDS + 1;
    static final int COUNT = HEADER_WORDS + 2;
    static final int BASE_EXPIRY = HEADER_WORDS + 3;
    static final int TAIL_EXPIRY = HEADER_WORDS + 4;
    static final int AGE = HEADER_WORDS + 5;
    /** The stream's first byte in the high 32 bits, its end byte in the low 32, counted from its first word. */
    static final int SPAN = HEADER_WORDS + 6;
    static final int NONCES = HEADER_WORDS + 7;
    /** The longest lease record: four varints. */
    private static final int MAX_RECORD_BYTES = 40;
    private static final long LOW_EXPLICIT = 1;
    private static final long SEVERAL_PERMITS = 2;
    /** Deltas beyond this do not come from valid times (366-day leases, millisecond clocks): a corrupt state. */
    private static final long MAX_DELTA = 1L << 58;

    final long[] tokens;
    final long[] permits;
    final long[] expiries;
    final long[] nonces;
    int size;

    Leases(int capacity) {
        tokens = new long[capacity];
        permits = new long[capacity];
        expiries = new long[capacity];
        nonces = new long[capacity];
    }

    void add(long token, long held, long expiry, long nonce) {
        tokens[size] = token;
        permits[size] = held;
        expiries[size] = expiry;
        nonces[size] = nonce;
        size++;
    }

    /** Removes the lease at {@code i}, keeping the order of the others. */
    void removeAt(int i) {
        int tail = size - i - 1;
        System.arraycopy(tokens, i + 1, tokens, i, tail);
        System.arraycopy(permits, i + 1, permits, i, tail);
        System.arraycopy(expiries, i + 1, expiries, i, tail);
        System.arraycopy(nonces, i + 1, nonces, i, tail);
        size--;
    }

    /** The index of the lease with this token, or -1. */
    int indexOf(long token) {
        for (int i = 0; i < size; i++) {
            if (tokens[i] == token) {
                return i;
            }
        }
        return -1;
    }

    /** Sorts the leases by expiry (stable: leases of one expiry keep their order). */
    void sortByExpiry() {
        for (int i = 1; i < size; i++) {
            if (expiries[i] < expiries[i - 1]) {
                Integer[] order = new Integer[size];
                for (int j = 0; j < size; j++) {
                    order[j] = j;
                }
                Arrays.sort(order, (a, b) -> Long.compare(expiries[a], expiries[b]));
                long[][] columns = {tokens, permits, expiries, nonces};
                for (long[] column : columns) {
                    long[] copy = Arrays.copyOf(column, size);
                    for (int j = 0; j < size; j++) {
                        column[j] = copy[order[j]];
                    }
                }
                return;
            }
        }
    }

    /** The leases of a layout 3 state, every one (expired or not), in its order. */
    static Leases decode(long[] state) {
        int count = count(state);
        Leases leases = new Leases(count + 1);
        Reader r = new Reader(state);
        for (int i = 0; i < count; i++) {
            r.next();
            leases.add(r.token, r.permits, r.expiry, r.nonce);
        }
        if (r.pos != r.end) {
            throw malformed(state);
        }
        return leases;
    }

    /**
     * Layout 3 words holding these leases in their order (which must be by expiry), with the given header times
     * and last token, records counting from {@code age}.
     */
    long[] encode(long lastNow, long expiresAt, long lastToken, long age) {
        byte[] stream = new byte[MAX_RECORD_BYTES * Math.max(1, size)];
        int end = 0;
        long held = 0;
        long previous = size == 0 ? 0 : expiries[0];
        for (int i = 0; i < size; i++) {
            end = putRecord(stream, end, previous, age, tokens[i], permits[i], expiries[i], nonces[i]);
            previous = expiries[i];
            held += permits[i];
        }
        long[] state = new long[NONCES + size + (end + 7 >>> 3)];
        System.arraycopy(nonces, 0, state, NONCES, size);
        int data = NONCES + size;
        WordStream.putBytes(stream, end, state, data, 0);
        state[Algorithms.HEADER] = header(ConcurrencyStep.ID, 0);
        state[LAST_NOW] = lastNow;
        state[EXPIRES_AT] = expiresAt;
        state[LAST_TOKEN] = lastToken;
        state[HELD] = held;
        state[COUNT] = size;
        state[BASE_EXPIRY] = size == 0 ? 0 : expiries[0];
        state[TAIL_EXPIRY] = previous;
        state[AGE] = age;
        state[SPAN] = end;
        return state;
    }

    /**
     * {@code state}'s leases from the {@code dropped}th (the reader {@code from} stands after the ones before it),
     * followed by one more lease, which expires no earlier than the last; the header's times are left for the caller.
     */
    static long[] append(long[] state, Reader from, int dropped, long token, long permits, long expiry, long nonce) {
        int count = count(state);
        int kept = count - dropped;
        byte[] record = new byte[MAX_RECORD_BYTES];
        long previous = kept == 0 ? expiry : state[TAIL_EXPIRY];
        int recordBytes = putRecord(record, 0, previous, state[AGE], token, permits, expiry, nonce);
        int firstWord = from.pos >>> 3;
        int start = kept == 0 ? 0 : from.pos & 7;
        int keptEnd = kept == 0 ? 0 : from.end - (firstWord << 3);
        int newEnd = keptEnd + recordBytes;
        int data = NONCES + kept + 1;
        long[] updated = new long[data + (newEnd + 7 >>> 3)];
        System.arraycopy(state, NONCES + dropped, updated, NONCES, kept);
        updated[NONCES + kept] = nonce;
        if (kept > 0) {
            System.arraycopy(state, NONCES + count + firstWord, updated, data, (from.end + 7 >>> 3) - firstWord);
        }
        WordStream.putBytes(record, recordBytes, updated, data, keptEnd);
        updated[Algorithms.HEADER] = header(ConcurrencyStep.ID, 0);
        updated[LAST_TOKEN] = state[LAST_TOKEN];
        updated[HELD] = (kept == 0 ? 0 : state[HELD] - from.passedPermits) + permits;
        updated[COUNT] = kept + 1;
        updated[BASE_EXPIRY] = kept == 0 ? expiry : from.expiry;
        updated[TAIL_EXPIRY] = expiry;
        updated[AGE] = state[AGE];
        updated[SPAN] = (long) start << 32 | newEnd;
        return updated;
    }

    /**
     * {@code state}'s live leases (those after the {@code dropped} expired ones, which {@code live} has just read) but
     * the one {@code at} has just read, which starts at byte {@code recordStart} and follows a lease expiring at
     * {@code previousExpiry}; in their order, the header's times left for the caller. Only the removed lease's
     * successor is written again, to count from the lease before it; the bytes before it stay where they were within
     * their words, and those after it move down by what the rewrite saved.
     */
    static long[] without(long[] state, Reader live, int dropped, Reader at, int recordStart, long previousExpiry) {
        int count = count(state);
        int removed = at.index - 1;
        long removedPermits = at.permits;
        int kept = count - dropped - 1;
        if (kept == 0) {
            return new Leases(1).encode(0, 0, state[LAST_TOKEN], state[AGE]);
        }
        byte[] successor = new byte[MAX_RECORD_BYTES];
        int successorBytes = 0;
        int tailFrom = at.pos;
        long tailExpiry = previousExpiry;
        if (at.hasNext()) {
            at.next();
            successorBytes = putRecord(successor, 0, previousExpiry, state[AGE], at.token, at.permits, at.expiry,
                    at.nonce);
            tailFrom = at.pos;
            tailExpiry = state[TAIL_EXPIRY];
        }
        int data = NONCES + count;
        int firstWord = live.pos >>> 3;
        int shift = firstWord << 3;
        int newStart = live.pos - shift;
        int prefixEnd = recordStart - shift;
        int newEnd = prefixEnd + successorBytes + (at.end - tailFrom);
        int newData = NONCES + kept;
        long[] updated = new long[newData + (newEnd + 7 >>> 3)];
        int before = removed - dropped;
        System.arraycopy(state, NONCES + dropped, updated, NONCES, before);
        System.arraycopy(state, NONCES + removed + 1, updated, NONCES + before, kept - before);
        int wholeWords = prefixEnd >>> 3;
        System.arraycopy(state, data + firstWord, updated, newData, wholeWords);
        if ((prefixEnd & 7) != 0) {
            updated[newData + wholeWords] = state[data + firstWord + wholeWords] & ((1L << ((prefixEnd & 7) << 3)) - 1);
        }
        WordStream.putBytes(successor, successorBytes, updated, newData, prefixEnd);
        WordStream.copyBytes(state, data, tailFrom, updated, newData, prefixEnd + successorBytes, at.end - tailFrom);
        updated[Algorithms.HEADER] = header(ConcurrencyStep.ID, 0);
        updated[LAST_TOKEN] = state[LAST_TOKEN];
        updated[HELD] = state[HELD] - live.passedPermits - removedPermits;
        updated[COUNT] = kept;
        updated[BASE_EXPIRY] = live.expiry;
        updated[TAIL_EXPIRY] = tailExpiry;
        updated[AGE] = state[AGE];
        updated[SPAN] = (long) newStart << 32 | newEnd;
        return updated;
    }

    private static int putRecord(byte[] out, int at, long previous, long age, long token, long permits, long expiry,
            long nonce) {
        long low = token & ConcurrencyStep.TOKEN_LOW;
        boolean lowExplicit = low != (nonce & ConcurrencyStep.NONCE_MASK);
        long ageOffset = expiry - (token >>> ConcurrencyStep.TOKEN_TIME_SHIFT) - age;
        long delta = expiry - previous;
        if (delta < 0 || delta > MAX_DELTA || Math.abs(ageOffset) > MAX_DELTA || permits <= 0) {
            throw new IllegalStateException("a concurrency lease that no valid step writes (token " + token
                    + ", permits " + permits + ", expiry " + expiry + "); delete the entry to start over");
        }
        at = WordStream.putVarint(out, at, delta);
        at = WordStream.putVarint(out, at, WordStream.zigzag(ageOffset) << 2 | (lowExplicit ? LOW_EXPLICIT : 0)
                | (permits != 1 ? SEVERAL_PERMITS : 0));
        if (lowExplicit) {
            at = WordStream.putVarint(out, at, low);
        }
        if (permits != 1) {
            at = WordStream.putVarint(out, at, permits);
        }
        return at;
    }

    /** The lease count of layout 3 words, checked against their length. */
    static int count(long[] state) {
        long count = state[COUNT];
        if (count < 0 || count > state.length - NONCES) {
            throw malformed(state);
        }
        return (int) count;
    }

    /** Whether layout 3 words hold a consistent header: a nonce per lease and a stream that fills what is left. */
    static boolean isWellFormed(long[] state) {
        if (state.length < NONCES) {
            return false;
        }
        long count = state[COUNT];
        if (count < 0 || count > state.length - NONCES) {
            return false;
        }
        long start = state[SPAN] >>> 32;
        long end = state[SPAN] & 0xFFFF_FFFFL;
        return start <= end && (end + 7) / 8 == state.length - NONCES - count && state[HELD] >= 0
                && (count == 0) == (start == end);
    }

    static IllegalStateException malformed(long[] state) {
        return new IllegalStateException("the entry under this key holds a malformed concurrency state ("
                + state.length + " words); delete the entry to start over");
    }

    /**
     * Reads layout 3 leases in order: after {@link #next}, the lease's token, permits, expiry and nonce, the
     * permits of every lease read so far, and the byte after it.
     */
    static final class Reader extends WordStream.Reader {
        private final int count;
        private final long age;
        int index;
        long token;
        long permits;
        long expiry;
        long nonce;
        long passedPermits;

        Reader(long[] state) {
            super(state, NONCES + count(state), (int) (state[SPAN] >>> 32), (int) state[SPAN]);
            this.count = (int) state[COUNT]; // checked by the call above
            this.age = state[AGE];
            this.expiry = state[BASE_EXPIRY];
        }

        @Override
        IllegalStateException malformed() {
            return Leases.malformed(state);
        }

        boolean hasNext() {
            return index < count;
        }

        /** Reads on while the next lease expired by {@code now}, stopping before the first that has not. */
        void skipExpired(long now) {
            while (index < count) {
                int at = pos;
                long before = expiry;
                long passed = passedPermits;
                next();
                if (expiry > now) {
                    pos = at;
                    expiry = before;
                    passedPermits = passed;
                    index--;
                    return;
                }
            }
        }

        void next() {
            if (index >= count) {
                throw malformed();
            }
            nonce = state[NONCES + index];
            expiry += varint();
            long tagged = varint();
            long tokenTime = expiry - age - WordStream.unzigzag(tagged >>> 2);
            long low = (tagged & LOW_EXPLICIT) != 0 ? varint() : nonce & ConcurrencyStep.NONCE_MASK;
            token = tokenTime << ConcurrencyStep.TOKEN_TIME_SHIFT | low;
            permits = (tagged & SEVERAL_PERMITS) != 0 ? varint() : 1;
            if (permits <= 0 || low > ConcurrencyStep.TOKEN_LOW) {
                throw malformed();
            }
            passedPermits += permits;
            index++;
        }
    }
}
