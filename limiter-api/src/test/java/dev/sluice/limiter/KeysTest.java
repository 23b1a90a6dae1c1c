package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class KeysTest {
    /** {@code printf '\xc3\xa9' | sha256sum}: the UTF-8 bytes of "é". */
    private static final String SHA256_E_ACUTE = "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c";

    @Test
    void escapePartition_plainPartition_isUnchanged() {
        String plain = "client-42:eu";
        assertSame(plain, Keys.escapePartition(plain));
    }

    @Test
    void escapePartition_slashAndPercent_areEscaped() {
        assertEquals("a%2Fb", Keys.escapePartition("a/b"));
        assertEquals("100%25", Keys.escapePartition("100%"));
        assertEquals("%252F", Keys.escapePartition("%2F"), "an escape sequence in the input is escaped again");
    }

    @Test
    void escapePartition_partitionWithSlash_cannotForgeAnotherPolicysKey() {
        String forged = "api" + "/" + Keys.escapePartition("admin/x");
        String genuine = "api/admin" + "/" + Keys.escapePartition("x");
        assertNotEquals(genuine, forged);
    }

    /** Regression: limiter names may hold '/', so limiter("login/global") and partition "global" of "login" shared a key. */
    @Test
    void limiterKey_nameWithSlash_neverEqualsAPartitionKey() {
        assertNotEquals(Keys.limiterKey("sluice", "login/global"), Keys.partitionKey("sluice", "login", "global"));
        assertEquals("sluice/login%2Fglobal", Keys.limiterKey("sluice", "login/global"));
        assertEquals("sluice/login/global", Keys.partitionKey("sluice", "login", "global"));
        assertNotEquals(Keys.partitionKey("a/b", "c", "d"), Keys.partitionKey("a", "b/c", "d"), "prefixes are escaped too");
    }

    /** A 10 MB partition id was stored as it was; now a long id is stored as its hash, which no short id can equal. */
    @Test
    void partitionSegment_longId_isHashedToABoundedLengthAndNeverMeetsAShortOne() {
        String huge = "x".repeat(10_000_000);
        String segment = Keys.partitionSegment(huge);
        assertEquals("%h" + Keys.digest(huge), segment);
        assertEquals(2 + Keys.DIGEST_LENGTH, segment.length());
        String atLimit = "y".repeat(Keys.MAX_PARTITION_ID_LENGTH);
        assertSame(atLimit, Keys.partitionSegment(atLimit), "up to the limit an id is kept as it is");
        assertNotEquals(segment, Keys.partitionSegment(segment), "a caller passing the hashed form gets another key");
    }

    /** Every limiter key has two segments and every partition key three, so the two kinds can never meet. */
    @Test
    void limiterKeyAndPartitionKey_randomNames_neverCollide() {
        Random rnd = new Random(11);
        char[] alphabet = {'a', '/', '%', '2', 'F'};
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < 30_000; i++) {
            String a = random(rnd, alphabet);
            String b = random(rnd, alphabet);
            String limiter = Keys.limiterKey("p", a + "/" + b);
            String partition = Keys.partitionKey("p", a, b);
            for (String[] key : new String[][] {{limiter, "limiter " + a + "/" + b}, {partition, "partition " + a + " " + b}}) {
                String previous = seen.putIfAbsent(key[0], key[1]);
                assertTrue(previous == null || previous.equals(key[1]), previous + " and " + key[1] + " share " + key[0]);
            }
        }
    }

    private static String random(Random rnd, char[] alphabet) {
        StringBuilder sb = new StringBuilder();
        for (int j = 1 + rnd.nextInt(5); j > 0; j--) {
            sb.append(alphabet[rnd.nextInt(alphabet.length)]);
        }
        return sb.toString();
    }

    @Test
    void escapePartition_randomPartitions_isInjectiveAndSlashFree() {
        Random rnd = new Random(5);
        char[] alphabet = {'a', '/', '%', '2', 'F', 'f', '5'};
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < 50_000; i++) {
            StringBuilder sb = new StringBuilder();
            int length = rnd.nextInt(7);
            for (int j = 0; j < length; j++) {
                sb.append(alphabet[rnd.nextInt(alphabet.length)]);
            }
            String partition = sb.toString();
            String escaped = Keys.escapePartition(partition);
            assertFalse(escaped.contains("/"), escaped);
            String previous = seen.putIfAbsent(escaped, partition);
            assertTrue(previous == null || previous.equals(partition),
                    "'" + previous + "' and '" + partition + "' both escape to '" + escaped + "'");
        }
        assertTrue(seen.size() > 10_000);
    }

    @Test
    void escapePartition_null_throwsNullPointer() {
        assertThrows(NullPointerException.class, () -> Keys.escapePartition(null));
    }

    @Test
    void sha256_knownVectors_matchTheStandard() {
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Keys.sha256(""));
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", Keys.sha256("abc"));
    }

    @Test
    void sha256_nonAscii_hashesUtf8Bytes() {
        assertEquals(SHA256_E_ACUTE, Keys.sha256("\u00e9"));
    }

    @Test
    void sha256_output_isLowercaseHexOf64Characters() {
        String hash = Keys.sha256("203.0.113.7");
        assertTrue(hash.matches("[0-9a-f]{64}"), hash);
        assertFalse(hash.contains("203.0.113.7"));
    }

    @Test
    void checkName_controlCharacter_throwsNamingIndex() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Keys.checkName("policy", "a\nb"));
        assertTrue(e.getMessage().contains("policy") && e.getMessage().contains("U+000A")
                && e.getMessage().contains("index 1"), e.getMessage());
    }

    @Test
    void checkName_emptyOrTooLong_throws() {
        assertThrows(IllegalArgumentException.class, () -> Keys.checkName("prefix", ""));
        assertThrows(IllegalArgumentException.class, () -> Keys.checkName("prefix", "x".repeat(257)));
        assertEquals("x".repeat(256), Keys.checkName("prefix", "x".repeat(256)));
    }

    /** Regression: sha256("bob\uD800") equalled sha256("bob?"): getBytes(UTF_8) replaces a lone surrogate with '?'. */
    @Test
    void sha256_loneSurrogate_isRefusedNamingItsIndex() {
        for (String malformed : new String[] {"bob\uD800", "bob\uDFFF", "\uDC00bob", "bob\uD800x"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Keys.sha256(malformed));
            assertTrue(e.getMessage().startsWith("identifier must be well-formed UTF-16")
                    && e.getMessage().contains("surrogate U+") && e.getMessage().contains("at index "), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Keys.sha256("bob\uD800"));
        assertTrue(e.getMessage().contains("lone high surrogate U+D800 at index 3 of 4"), e.getMessage());
        assertEquals(64, Keys.sha256("bob?").length());
        assertNotEquals(Keys.sha256("bob\uD83D\uDE00"), Keys.sha256("bob?"), "a surrogate pair is a character of its own");
    }

    /** Regression: partition ids "bob?", "bob\uD800" and "bob\uDFFF" shared one Hazelcast entry. */
    @Test
    void everyKeyBuilder_loneSurrogate_isRefused() {
        String lone = "bob\uD800";
        String longLone = "x".repeat(Keys.MAX_PARTITION_ID_LENGTH) + "\uDFFF";
        assertThrows(IllegalArgumentException.class, () -> Keys.escapePartition(lone));
        assertThrows(IllegalArgumentException.class, () -> Keys.partitionSegment(lone));
        assertThrows(IllegalArgumentException.class, () -> Keys.partitionSegment(longLone), "the hashed form too");
        assertThrows(IllegalArgumentException.class, () -> Keys.partitionKey("sluice", "login", "a/\uDFFF"));
        assertThrows(IllegalArgumentException.class, () -> Keys.limiterKey("sluice", lone));
        assertThrows(IllegalArgumentException.class, () -> Keys.checkName("name", lone));
        assertEquals("bob?", Keys.escapePartition("bob?"));
        assertEquals("bob\uD83D\uDE00%2F", Keys.escapePartition("bob\uD83D\uDE00/"), "a pair is kept as it is");
    }

    /** The key format's digests: a change here changes every stored key, and needs a new {@link Keys#FORMAT_VERSION}. */
    @Test
    void digest_knownVectors_areTheFirst144BitsOfSha256InBase64url() {
        assertEquals(2, Keys.FORMAT_VERSION);
        assertEquals("47DEQpj8HBSa-_TImW-5JCeu", Keys.digest(""));
        assertEquals("ungWv48Bz-pBQUDeXa4iI7AD", Keys.digest("abc"));
        assertEquals("SplVfkAzw1Od4utlRyAXytX5", Keys.digest("\u00e9"), "the UTF-8 bytes are hashed");
        assertEquals("sluice/per-client/aDaLg2r3uJwsbvmjragajaWF",
                Keys.partitionKey("sluice", "per-client", Keys.digest("ip:203.0.113.7")), "a key of the HTTP filters");
    }

    @Test
    void digest_isThePrefixOfTheWholeSha256() {
        for (String id : new String[] {"", "ip:203.0.113.7", "api-key:k1", "\uD83D\uDE00", "x".repeat(1000)}) {
            byte[] whole = HexFormat.of().parseHex(Keys.sha256(id));
            assertArrayEquals(Arrays.copyOf(whole, Keys.DIGEST_BITS / 8), Keys.decodeDigest(Keys.digest(id)), id);
        }
    }

    @Test
    void digest_anyIdentifier_is24Base64urlCharactersAndOneKeySegmentAsItIs() {
        Random rnd = new Random(3);
        for (int i = 0; i < 10_000; i++) {
            String digest = Keys.digest("id-" + rnd.nextLong());
            assertEquals(24, digest.length());
            assertTrue(digest.matches("[A-Za-z0-9_-]{24}"), digest);
            assertSame(digest, Keys.escapePartition(digest), "nothing to escape");
            assertSame(digest, Keys.partitionSegment(digest), "stored as it is");
        }
    }

    /** Distinct identities never share a key through the encoding: 200,000 addresses, 200,000 digests. */
    @Test
    void digest_distinctIdentities_distinctDigests() {
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            String identity = "ip:10." + (i >>> 16) + "." + ((i >>> 8) & 0xFF) + "." + (i & 0xFF);
            String previous = seen.putIfAbsent(Keys.digest(identity), identity);
            assertTrue(previous == null, previous + " and " + identity + " share a digest");
        }
    }

    /** The encoding is one-to-one on the bits kept: no two hashes that differ there share a digest. */
    @Test
    void encodeDigest_roundTripsTheBitsItKeeps_andIgnoresTheRest() {
        Random rnd = new Random(7);
        for (int i = 0; i < 10_000; i++) {
            byte[] hash = new byte[32];
            rnd.nextBytes(hash);
            String digest = Keys.encodeDigest(hash);
            assertArrayEquals(Arrays.copyOf(hash, 18), Keys.decodeDigest(digest));
            byte[] flipped = hash.clone();
            flipped[rnd.nextInt(18)] ^= (byte) (1 << rnd.nextInt(8));
            assertNotEquals(digest, Keys.encodeDigest(flipped), "one bit of the 144 kept");
            byte[] beyond = hash.clone();
            beyond[18 + rnd.nextInt(14)] ^= 1;
            assertEquals(digest, Keys.encodeDigest(beyond), "bits past the 144th are not kept");
        }
        assertEquals(Keys.encodeDigest(new byte[18]), Keys.encodeDigest(new byte[32]));
    }

    @Test
    void encodeDigest_shortHash_throwsNamingTheLength() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Keys.encodeDigest(new byte[17]));
        assertEquals("hash must be at least 18 bytes (144 bits), was 17 bytes", e.getMessage());
        assertThrows(NullPointerException.class, () -> Keys.encodeDigest(null));
    }

    @Test
    void decodeDigest_notADigest_throwsNamingTheValue() {
        String good = Keys.digest("abc");
        for (String bad : new String[] {"", good.substring(1), good + "A", "ungWv48Bz+pBQUDeXa4iI7AD",
                "ungWv48Bz/pBQUDeXa4iI7AD", "ungWv48Bz-pBQUDeXa4iI7==", "ungWv48Bz-pBQUDeXa4iI7A\u00e9",
                "ungWv48Bz-pBQUDeXa4iI7A "}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Keys.decodeDigest(bad), bad);
            assertTrue(e.getMessage().startsWith("digest must be 24 base64url characters")
                    && e.getMessage().contains("'" + bad + "' (" + bad.length() + " characters)"), e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> Keys.decodeDigest(null));
    }

    @Test
    void digest_loneSurrogate_isRefusedNamingItsIndex() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Keys.digest("bob\uD800"));
        assertTrue(e.getMessage().startsWith("identifier must be well-formed UTF-16")
                && e.getMessage().contains("lone high surrogate U+D800 at index 3 of 4"), e.getMessage());
        assertNotEquals(Keys.digest("bob\uD83D\uDE00"), Keys.digest("bob?"));
    }
}
