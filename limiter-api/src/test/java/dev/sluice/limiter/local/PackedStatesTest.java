package dev.sluice.limiter.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Keys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class PackedStatesTest {
    private final PackedStates states = new PackedStates();

    @Test
    void put_thenGet_givesACopyOfTheWords() {
        long[] state = {1, 2, 3, 4, 5};
        states.put("sluice/per-client/" + Keys.digest("ip:203.0.113.7"), state);
        long[] read = states.get("sluice/per-client/" + Keys.digest("ip:203.0.113.7"));
        assertArrayEquals(state, read);
        assertNotSame(state, read);
        read[0] = 99;
        assertArrayEquals(state, states.peek("sluice/per-client/" + Keys.digest("ip:203.0.113.7")), "a copy");
    }

    /** Keys that share a last segment, a prefix, or bytes once packed are still distinct keys. */
    @Test
    void keysThatLookAlike_areDistinct() {
        List<String> keys = List.of("a/b/x", "a/c/x", "a/bx", "ab/x", "x", "/x", "a/b/x\u0000", "a/b/\u0000x",
                "a/b/x\u0100", "a/b/\u0100x", "a/b/x\u0000\u0000", "a/b/", "a/b//", "a/b/xx", "a/b/xxxxxxxx",
                "a/b/xxxxxxxxx", "a/b/\u00ff", "a/b/\u00ff\u0000", "a/b/\uD83D\uDE00", "a/b/\u3d00\u00d8");
        for (int i = 0; i < keys.size(); i++) {
            states.put(keys.get(i), new long[] {i});
        }
        assertEquals(keys.size(), states.size());
        for (int i = 0; i < keys.size(); i++) {
            assertArrayEquals(new long[] {i}, states.get(keys.get(i)), keys.get(i));
        }
        assertNull(states.get("a/b/y"));
        assertNull(states.get("a/x"));
    }

    /** An entry moves between its inline and its array form as its state grows and shrinks, keeping its place. */
    @Test
    void stateGrowingPastTheInlineWords_andBack_isKeptWhole() {
        String key = "sluice/login/" + Keys.digest("someone");
        states.put("sluice/login/first", new long[] {0});
        for (int words : new int[] {5, 6, 40, 1, 5, 300, 2}) {
            long[] state = new long[words];
            Arrays.setAll(state, i -> i * 31L + words);
            states.put(key, state);
            assertArrayEquals(state, states.get(key), words + " words");
            assertEquals(2, states.size());
        }
        PackedStates.Cursor cursor = states.eldestFirst();
        assertArrayEquals(new long[] {0}, cursor.next(), "the untouched key is the eldest");
        assertEquals(2, cursor.next().length);
        assertFalse(cursor.hasNext());
    }

    /** Against LinkedHashMap in access order: every read, write, removal and walk agrees. */
    @Test
    void randomOperations_agreeWithALinkedHashMapInAccessOrder() {
        Random rnd = new Random(17);
        Map<String, long[]> model = new LinkedHashMap<>(16, 0.75f, true);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            String prefix = "p" + rnd.nextInt(3) + "/" + (rnd.nextBoolean() ? "policy/" : "");
            String last = switch (rnd.nextInt(4)) {
                case 0 -> Keys.digest("id-" + i);
                case 1 -> "k" + i;
                case 2 -> "\u0100" + i;
                default -> "x".repeat(rnd.nextInt(70)) + i;
            };
            keys.add(prefix + last);
        }
        for (int op = 0; op < 200_000; op++) {
            String key = keys.get(rnd.nextInt(keys.size()));
            switch (rnd.nextInt(6)) {
                case 0, 1 -> {
                    long[] state = new long[1 + (rnd.nextInt(10) == 0 ? rnd.nextInt(20) : rnd.nextInt(6))];
                    Arrays.setAll(state, i -> rnd.nextLong());
                    model.put(key, state);
                    states.put(key, state);
                }
                case 2, 3 -> assertArrayEquals(model.get(key), states.get(key), key);
                case 4 -> assertArrayEquals(model.remove(key), states.remove(key), key);
                default -> {
                    if (rnd.nextInt(500) == 0) {
                        assertSameOrder(model);
                        dropEldest(model, rnd.nextInt(20));
                    }
                }
            }
            assertEquals(model.size(), states.size());
        }
        assertSameOrder(model);
        assertTrue(model.size() > 1_000, "the walk saw a table that grew: " + model.size());
    }

    private void assertSameOrder(Map<String, long[]> model) {
        PackedStates.Cursor cursor = states.eldestFirst();
        for (long[] expected : model.values()) {
            assertTrue(cursor.hasNext());
            assertArrayEquals(expected, cursor.next());
        }
        assertFalse(cursor.hasNext());
    }

    /** Removes the {@code n} least recently used entries through a walk, from the model too. */
    private void dropEldest(Map<String, long[]> model, int n) {
        PackedStates.Cursor cursor = states.eldestFirst();
        var modelWalk = model.values().iterator();
        for (int i = 0; i < n && cursor.hasNext(); i++) {
            assertArrayEquals(modelWalk.next(), cursor.next());
            cursor.remove();
            modelWalk.remove();
        }
        assertEquals(model.size(), states.size());
    }
}
