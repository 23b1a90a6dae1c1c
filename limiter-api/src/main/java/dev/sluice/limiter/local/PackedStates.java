package dev.sluice.limiter.local;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One segment's states by key, least recently used first: a hash table whose entries hold their key and state
 * in as few bytes as the JVM allows. Not thread-safe: the segment's lock guards it.
 *
 * <p>Where the bytes go. A key is {@code <prefix>/<last segment>}; the prefix (a limiter's or policy's, shared by
 * all its keys) is held once per segment and referenced, and only the last segment is stored, one byte a character
 * (two when one is beyond Latin-1), packed into words. An entry whose key and state take at most
 * {@value #INLINE_WORDS} words (an identity digest and a token bucket, a GCRA or a window: 3 + 5) keeps them in
 * fields of its own, so it is one object of 104 bytes with compressed references, where a {@code LinkedHashMap}
 * entry, the key string, its bytes and the state array took four; a larger one keeps them in two arrays. So
 * {@link #get} returns a copy of the state, never the instance that was {@linkplain #put put}: a state is never
 * changed in place anyway (a step builds a new one), and the copy lets the store keep it in this form.
 */
final class PackedStates {
    /** The words an entry holds in its own fields; larger entries hold two arrays. */
    static final int INLINE_WORDS = 8;
    /** Distinct prefixes shared per segment; past it, a new prefix is held by its entries alone (still exact). */
    static final int MAX_SHARED_PREFIXES = 1024;

    private static final int WIDE = 1 << 27;
    private static final int LENGTH_MASK = WIDE - 1;

    private Node[] table = new Node[16];
    private int size;
    /** The least and the most recently used entry. */
    private Node eldest;
    private Node youngest;
    private final Map<String, String> prefixes = new HashMap<>();
    /** The last segment of the key being looked up, packed as stored; reused (the segment lock is held). */
    private long[] probe = new long[4];
    private int probeWords;
    private int probeShape;
    /** A state copy per length up to {@link #INLINE_WORDS}, for reads the caller does not keep ({@link Cursor}). */
    private final long[][] scratch = new long[INLINE_WORDS + 1][];

    /**
     * An entry: hash, shape (last segment's length in characters, whether two bytes a character, and for an inline
     * entry its state's words), shared prefix, its hash chain and its place in the use order.
     */
    private abstract static class Node {
        final int hash;
        int shape;
        final String prefix;
        Node next;
        Node before;
        Node after;

        Node(int hash, int shape, String prefix) {
            this.hash = hash;
            this.shape = shape;
            this.prefix = prefix;
        }

        abstract long keyWord(int i);

        abstract int stateWords();

        /** The state, in {@code into} when given (its length is {@link #stateWords}), else in a new array. */
        abstract long[] state(long[] into);

        /** Replaces the state if it fits this kind of entry; false if the entry must be replaced. */
        abstract boolean setState(long[] state);
    }

    /** Key and state in eight words of its own. */
    private static final class Inline extends Node {
        long w0;
        long w1;
        long w2;
        long w3;
        long w4;
        long w5;
        long w6;
        long w7;

        Inline(int hash, int shape, String prefix) {
            super(hash, shape, prefix);
        }

        private int keyWords() {
            return wordsOf(shape);
        }

        private long word(int i) {
            switch (i) {
                case 0: return w0;
                case 1: return w1;
                case 2: return w2;
                case 3: return w3;
                case 4: return w4;
                case 5: return w5;
                case 6: return w6;
                default: return w7;
            }
        }

        private void setWord(int i, long v) {
            switch (i) {
                case 0: w0 = v; break;
                case 1: w1 = v; break;
                case 2: w2 = v; break;
                case 3: w3 = v; break;
                case 4: w4 = v; break;
                case 5: w5 = v; break;
                case 6: w6 = v; break;
                default: w7 = v;
            }
        }

        @Override
        long keyWord(int i) {
            return word(i);
        }

        @Override
        int stateWords() {
            return shape >>> 28;
        }

        @Override
        long[] state(long[] into) {
            int k = keyWords();
            long[] s = into != null ? into : new long[stateWords()];
            for (int i = 0; i < s.length; i++) {
                s[i] = word(k + i);
            }
            return s;
        }

        @Override
        boolean setState(long[] state) {
            int k = keyWords();
            if (k + state.length > INLINE_WORDS) {
                return false;
            }
            for (int i = 0; i < state.length; i++) {
                setWord(k + i, state[i]);
            }
            shape = (shape & ~(0xF << 28)) | (state.length << 28);
            return true;
        }

        void setKey(long[] words, int n) {
            for (int i = 0; i < n; i++) {
                setWord(i, words[i]);
            }
        }
    }

    /** Key and state too large for {@link Inline}: the state array as it was put. */
    private static final class Spilled extends Node {
        final long[] key;
        long[] state;

        Spilled(int hash, int shape, String prefix, long[] key) {
            super(hash, shape, prefix);
            this.key = key;
        }

        @Override
        long keyWord(int i) {
            return key[i];
        }

        @Override
        int stateWords() {
            return state.length;
        }

        @Override
        long[] state(long[] into) {
            if (into == null) {
                return state.clone();
            }
            System.arraycopy(state, 0, into, 0, into.length);
            return into;
        }

        @Override
        boolean setState(long[] s) {
            if (key.length + s.length <= INLINE_WORDS) {
                return false;
            }
            state = s.clone();
            return true;
        }
    }

    /** The words a last segment of this shape takes. */
    private static int wordsOf(int shape) {
        int bytes = (shape & LENGTH_MASK) * ((shape & WIDE) != 0 ? 2 : 1);
        return (bytes + 7) >>> 3;
    }

    /**
     * The key's hash, mixed apart from the one that chose its segment: all keys of a segment share the low bits of
     * that one, and would share a sixty-fourth of this table.
     */
    private static int hashOf(String key) {
        int h = key.hashCode() * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /** Packs the key's last segment (from {@code start}) into {@link #probe}, {@link #probeWords}, {@link #probeShape}. */
    private void pack(String key, int start) {
        int n = key.length() - start;
        if (n > LENGTH_MASK) {
            throw new IllegalArgumentException("a key's last segment must be at most " + LENGTH_MASK
                    + " characters, was " + n);
        }
        boolean wide = false;
        for (int i = start; i < key.length() && !wide; i++) {
            wide = key.charAt(i) > 0xFF;
        }
        int bytesPerChar = wide ? 2 : 1;
        int words = (n * bytesPerChar + 7) >>> 3;
        if (probe.length < words) {
            probe = new long[Math.max(words, probe.length * 2)];
        }
        Arrays.fill(probe, 0, words, 0L);
        for (int i = 0; i < n; i++) {
            long c = key.charAt(start + i);
            int bit = i * bytesPerChar * 8;
            probe[bit >>> 6] |= c << (bit & 63);
        }
        probeWords = words;
        probeShape = n | (wide ? WIDE : 0);
    }

    private static int lastSegmentStart(String key) {
        return key.lastIndexOf('/') + 1;
    }

    /** The entry of {@code key} (its last segment packed in {@link #probe}), or null. */
    private Node find(String key, int start, int hash) {
        for (Node n = table[hash & (table.length - 1)]; n != null; n = n.next) {
            if (n.hash == hash && (n.shape & ~(0xF << 28)) == probeShape && n.prefix.length() == start
                    && key.startsWith(n.prefix) && sameKeyWords(n)) {
                return n;
            }
        }
        return null;
    }

    private boolean sameKeyWords(Node n) {
        for (int i = 0; i < probeWords; i++) {
            if (n.keyWord(i) != probe[i]) {
                return false;
            }
        }
        return true;
    }

    private Node lookup(String key) {
        int start = lastSegmentStart(key);
        pack(key, start);
        return find(key, start, hashOf(key));
    }

    /** A copy of the state of {@code key}, which becomes the most recently used; null if none. */
    long[] get(String key) {
        Node n = lookup(key);
        if (n == null) {
            return null;
        }
        moveToYoungest(n);
        return n.state(null);
    }

    /** A copy of the state of {@code key}, its place in the use order unchanged; null if none. */
    long[] peek(String key) {
        Node n = lookup(key);
        return n == null ? null : n.state(null);
    }

    /** Stores {@code state} (copied) as the state of {@code key}, its most recently used. */
    void put(String key, long[] state) {
        int start = lastSegmentStart(key);
        pack(key, start);
        int hash = hashOf(key);
        Node n = find(key, start, hash);
        if (n != null) {
            if (n.setState(state)) {
                moveToYoungest(n);
                return;
            }
            unlink(n); // it changes kind: a new entry replaces it
        }
        link(newNode(key, start, hash, state));
    }

    private Node newNode(String key, int start, int hash, long[] state) {
        String prefix = key.substring(0, start);
        String shared = prefixes.get(prefix);
        if (shared == null && prefixes.size() < MAX_SHARED_PREFIXES) {
            prefixes.put(prefix, prefix);
            shared = prefix;
        }
        prefix = shared != null ? shared : prefix;
        if (probeWords + state.length <= INLINE_WORDS) {
            Inline n = new Inline(hash, probeShape, prefix);
            n.setKey(probe, probeWords);
            n.setState(state);
            return n;
        }
        Spilled n = new Spilled(hash, probeShape, prefix, Arrays.copyOf(probe, probeWords));
        n.state = state.clone();
        return n;
    }

    /** Removes the entry of {@code key}; its state, or null if it had none. */
    long[] remove(String key) {
        Node n = lookup(key);
        if (n == null) {
            return null;
        }
        unlink(n);
        return n.state(null);
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** A walk over the entries from the least recently used on. */
    Cursor eldestFirst() {
        return new Cursor();
    }

    /**
     * A walk from the least recently used entry. {@link #next} gives the entry's state in an array that the next
     * call may reuse: read it, do not keep it.
     */
    final class Cursor {
        private Node next = eldest;
        private Node current;

        boolean hasNext() {
            return next != null;
        }

        long[] next() {
            current = next;
            next = current.after;
            int words = current.stateWords();
            if (words > INLINE_WORDS) {
                return current.state(null);
            }
            long[] into = scratch[words];
            if (into == null) {
                into = scratch[words] = new long[words];
            }
            return current.state(into);
        }

        /** Removes the entry {@link #next} gave last. */
        void remove() {
            unlink(current);
            current = null;
        }
    }

    private void link(Node n) {
        if (size >= table.length) {
            resize();
        }
        int i = n.hash & (table.length - 1);
        n.next = table[i];
        table[i] = n;
        n.before = youngest;
        n.after = null;
        if (youngest == null) {
            eldest = n;
        } else {
            youngest.after = n;
        }
        youngest = n;
        size++;
    }

    private void unlink(Node n) {
        int i = n.hash & (table.length - 1);
        if (table[i] == n) {
            table[i] = n.next;
        } else {
            Node p = table[i];
            while (p.next != n) {
                p = p.next;
            }
            p.next = n.next;
        }
        if (n.before == null) {
            eldest = n.after;
        } else {
            n.before.after = n.after;
        }
        if (n.after == null) {
            youngest = n.before;
        } else {
            n.after.before = n.before;
        }
        n.next = n.before = n.after = null;
        size--;
    }

    private void moveToYoungest(Node n) {
        if (n == youngest) {
            return;
        }
        if (n.before == null) {
            eldest = n.after;
        } else {
            n.before.after = n.after;
        }
        n.after.before = n.before;
        n.before = youngest;
        n.after = null;
        youngest.after = n;
        youngest = n;
    }

    /** Doubles the table: a load of one entry a slot at most, chains of about one. */
    private void resize() {
        Node[] old = table;
        Node[] grown = new Node[old.length * 2];
        int mask = grown.length - 1;
        for (Node head : old) {
            for (Node n = head; n != null; ) {
                Node following = n.next;
                n.next = grown[n.hash & mask];
                grown[n.hash & mask] = n;
                n = following;
            }
        }
        table = grown;
    }
}
