package dev.sluice.limiter.algorithm;

import java.util.Arrays;

/**
 * The form in which a store keeps a state: the algorithm's words packed into fewer longs, read back as the
 * very same words. A state's words are mostly small numbers and times close to its latest time, yet each takes
 * eight bytes; packed, a five-word window, bucket or GCRA state takes three longs (40 bytes on the heap instead
 * of 56). A composite's words hold its components' full headers and pack no shorter, and a sliding log and a
 * concurrency limiter keep their times and leases as byte streams already (the leases beside their random nonces):
 * these are stored as they are.
 *
 * <p>Layout: word 0 holds {@link #PACKED_MAGIC} in its top 16 bits, the byte count of the packed stream in the
 * next 16, then the stream's first 4 bytes; each further word holds 8 more. The stream: the word count, the
 * header's algorithm id, layout version and shape, the latest time (word 1) as a zig-zag varint, then each
 * further word as a zig-zag varint of itself or of its distance from word 1, whichever is shorter, tagged in its
 * lowest bit. Only Sluice state is packed, and only when the packed form is shorter and unpacks to the same
 * words; anything else is stored as it is.
 *
 * <p>The header check stays whole: the packed magic differs from a state's, so packed words that reached a step
 * without unpacking would be refused as "not Sluice limiter state", never misread; and unpacking rebuilds the
 * header the step checks. Values written by an older Sluice (plain words) are read as they are.
 */
public final class StoredState {
    /** Top 16 bits of a packed value's first word; a state's own header starts with {@code 0x51CE}. */
    public static final long PACKED_MAGIC = 0x51CFL;
    private static final long STATE_MAGIC = 0x51CEL;
    private static final int MAX_STREAM_BYTES = 0xFFFF;
    /**
     * Longer states are stored as they are without trying: their stream would take more than three bytes a word to
     * fit, which Sluice's large states (old four-word leases, old one-word-per-permit logs) do not, and the attempt
     * would cost every step a pass over the whole state.
     */
    public static final int MAX_PACKED_WORDS = MAX_STREAM_BYTES / 3;

    private StoredState() {}

    /** What to store for {@code words}: their packed form, or the words themselves. */
    public static long[] pack(long[] words) {
        if (words == null || Algorithms.algorithmIdOf(words) < 0 || (words[0] >>> 48) != STATE_MAGIC
                || words.length > MAX_PACKED_WORDS || Algorithms.isCompact(words)) {
            return words;
        }
        byte[] stream = new byte[10 * (words.length + 4)];
        int at = 0;
        at = putVarint(stream, at, words.length);
        at = putVarint(stream, at, (words[0] >>> 40) & 0xFF);
        at = putVarint(stream, at, (words[0] >>> 32) & 0xFF);
        at = putVarint(stream, at, words[0] & 0xFFFF_FFFFL);
        long base = words[1];
        at = putVarint(stream, at, zigzag(base));
        for (int i = 2; i < words.length; i++) {
            long plain = zigzag(words[i]);
            long relative = zigzag(words[i] - base); // wraps for extreme values: the round trip check catches it
            boolean fromBase = Long.compareUnsigned(relative, plain) < 0;
            long chosen = fromBase ? relative : plain;
            if (chosen < 0) {
                return words; // no room for the tag bit
            }
            at = putVarint(stream, at, chosen << 1 | (fromBase ? 1 : 0));
        }
        if (at > MAX_STREAM_BYTES) {
            return words;
        }
        long[] packed = new long[1 + Math.max(0, (at - 4 + 7) / 8)];
        if (packed.length >= words.length) {
            return words;
        }
        packed[0] = PACKED_MAGIC << 48 | (long) at << 32;
        for (int i = 0; i < at; i++) {
            int bit = i < 4 ? (3 - i) * 8 : (7 - (i - 4) % 8) * 8;
            int word = i < 4 ? 0 : 1 + (i - 4) / 8;
            packed[word] |= (stream[i] & 0xFFL) << bit;
        }
        return Arrays.equals(unpack(packed), words) ? packed : words;
    }

    /** The words of a stored value: unpacked, or the value itself when it is not packed. */
    public static long[] unpack(long[] stored) {
        if (stored == null || stored.length == 0 || (stored[0] >>> 48) != PACKED_MAGIC) {
            return stored;
        }
        int length = (int) ((stored[0] >>> 32) & 0xFFFF);
        if (length > 4 + 8L * (stored.length - 1)) {
            throw new IllegalStateException("a packed Sluice state of " + stored.length + " words claims " + length
                    + " bytes; delete the entry to start over");
        }
        Reader in = new Reader(stored, length);
        int n = (int) in.varint();
        if (n < 3 || n > 1 << 20) {
            throw new IllegalStateException("a packed Sluice state claims " + n + " words; delete the entry to start over");
        }
        long[] words = new long[n];
        long algorithm = in.varint();
        long layout = in.varint();
        long shape = in.varint();
        words[0] = STATE_MAGIC << 48 | (algorithm & 0xFF) << 40 | (layout & 0xFF) << 32 | (shape & 0xFFFF_FFFFL);
        words[1] = unzigzag(in.varint());
        for (int i = 2; i < n; i++) {
            long tagged = in.varint();
            long value = unzigzag(tagged >>> 1);
            words[i] = (tagged & 1) == 1 ? words[1] + value : value;
        }
        return words;
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    private static int putVarint(byte[] out, int at, long v) {
        while ((v & ~0x7FL) != 0) {
            out[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[at++] = (byte) v;
        return at;
    }

    /** Reads the stream back out of the packed words. */
    private static final class Reader {
        private final long[] packed;
        private final int length;
        private int at;

        Reader(long[] packed, int length) {
            this.packed = packed;
            this.length = length;
        }

        private int next() {
            if (at >= length) {
                throw new IllegalStateException("a packed Sluice state ends early; delete the entry to start over");
            }
            int i = at++;
            int bit = i < 4 ? (3 - i) * 8 : (7 - (i - 4) % 8) * 8;
            int word = i < 4 ? 0 : 1 + (i - 4) / 8;
            return (int) ((packed[word] >>> bit) & 0xFF);
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = next();
                v |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalStateException("a packed Sluice state holds a malformed number; delete the entry");
        }
    }
}
