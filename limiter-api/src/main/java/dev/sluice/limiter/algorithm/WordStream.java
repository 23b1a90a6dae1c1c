package dev.sluice.limiter.algorithm;

/**
 * A byte stream kept in a state's trailing words, little-endian within a word, as the sliding log's runs and the
 * concurrency leases are: varints written into a byte array and read back from the words in order.
 */
final class WordStream {
    private WordStream() {}

    /** Writes {@code v} as an unsigned LEB128 varint at {@code at}; returns the byte after it. */
    static int putVarint(byte[] out, int at, long v) {
        while ((v & ~0x7FL) != 0) {
            out[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[at++] = (byte) v;
        return at;
    }

    static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    /** ORs byte {@code b} into the stream that starts at word {@code data}, at byte {@code at} (still zero). */
    static void putByte(long[] words, int data, int at, byte b) {
        words[data + (at >>> 3)] |= (b & 0xFFL) << ((at & 7) << 3);
    }

    /** ORs the first {@code length} of {@code bytes} into the stream at word {@code data}, from byte {@code at}. */
    static void putBytes(byte[] bytes, int length, long[] words, int data, int at) {
        for (int i = 0; i < length; i++) {
            putByte(words, data, at + i, bytes[i]);
        }
    }

    /**
     * Copies {@code length} bytes of a stream at {@code from} into a zeroed one at {@code to}, a word at a time
     * where the destination is word-aligned, whatever the two offsets within their words.
     */
    static void copyBytes(long[] src, int srcData, int from, long[] dst, int dstData, int to, int length) {
        int i = 0;
        while (i < length && ((to + i) & 7) != 0) {
            putByte(dst, dstData, to + i, byteAt(src, srcData, from + i));
            i++;
        }
        int sh = ((from + i) & 7) << 3;
        int last = srcData + ((from + length - 1) >>> 3);
        for (; i + 8 <= length; i += 8) {
            int w = srcData + ((from + i) >>> 3);
            long value = src[w] >>> sh;
            if (sh != 0 && w + 1 <= last) {
                value |= src[w + 1] << (64 - sh);
            }
            dst[dstData + ((to + i) >>> 3)] = value;
        }
        for (; i < length; i++) {
            putByte(dst, dstData, to + i, byteAt(src, srcData, from + i));
        }
    }

    static byte byteAt(long[] words, int data, int at) {
        return (byte) (words[data + (at >>> 3)] >>> ((at & 7) << 3));
    }

    /** Reads varints in order from {@link #pos} up to {@link #end}; reading past it is a malformed state. */
    abstract static class Reader {
        final long[] state;
        private final int data;
        final int end;
        int pos;

        Reader(long[] state, int data, int pos, int end) {
            this.state = state;
            this.data = data;
            this.pos = pos;
            this.end = end;
        }

        /** The exception a malformed stream is refused with. */
        abstract IllegalStateException malformed();

        final long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos >= end) {
                    throw malformed();
                }
                int b = (int) (state[data + (pos >>> 3)] >>> ((pos & 7) << 3)) & 0xFF;
                pos++;
                v |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw malformed();
        }
    }
}
