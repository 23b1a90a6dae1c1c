package dev.sluice.limiter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;

/**
 * How Sluice builds store keys, and a hash for identifiers that must not be stored as they are.
 *
 * <p>Every string that becomes part of a key, or is hashed, must be well-formed UTF-16: a surrogate only as
 * half of a high-low pair. A lone surrogate has no UTF-8 encoding, and encoders (the JDK's, Hazelcast's)
 * silently replace it with {@code ?}, so {@code "bob\uD800"}, {@code "bob\uDFFF"} and {@code "bob?"} would
 * share one budget. Such a string is refused with an {@link IllegalArgumentException} naming its position.
 *
 * <p>A digest ({@link #digest}, and a long partition id's hash) is the first {@value #DIGEST_BITS} bits of SHA-256
 * (or of an HMAC-SHA256, {@link #encodeDigest}) in unpadded base64url: {@value #DIGEST_LENGTH} characters where hex
 * took 64, so a key is 40 bytes shorter in every store. Why {@value #DIGEST_BITS} bits are enough: a digest stops
 * protecting a budget only when someone finds a second identifier with a given identifier's digest (a second
 * preimage), which costs about 2<sup>144</sup> hashes, and against any one of {@code n} stored keys
 * 2<sup>144</sup>/{@code n} (2<sup>114</sup> with a billion keys), beyond any attacker. Two identifiers an attacker
 * chose both of can be made to share a digest for about 2<sup>72</sup> hashes (a collision), but that only merges
 * two budgets the attacker already holds; by chance, some two of a billion keys share a digest with a probability
 * of about 2<sup>-85</sup>. 144 bits are 18 bytes, a whole number of base64 characters: every digest has the same
 * length and no spare bits, so each digest has exactly one spelling. The alphabet ({@code A-Z a-z 0-9 - _}) holds no
 * {@code /}, {@code %} or control character, so a digest is a key segment as it is and safe in a URL path.
 *
 * <p>The key format is versioned ({@link #FORMAT_VERSION}): a release that changes how a key is spelled starts a
 * fresh budget for every key it spells differently, so its notes say so.
 */
public final class Keys {
    /**
     * The version of the key format. 2: digests are {@value #DIGEST_LENGTH} base64url characters ({@link #digest},
     * and the {@code %h} form of a long partition id). 1: they were the 64 hex digits of the whole SHA-256. Keys of
     * the two versions never meet (their digests differ in length), so after an upgrade from 1 every key built from
     * a digest (every key of the HTTP filters) starts with a fresh budget, and while replicas of both versions
     * share a store they count such a key apart, each with its own budget.
     */
    public static final int FORMAT_VERSION = 2;
    /** The bits of a hash that a digest keeps (see the class comment for why they suffice). */
    public static final int DIGEST_BITS = 144;
    /** The characters of a digest: {@value #DIGEST_BITS} bits at 6 a base64url character. */
    public static final int DIGEST_LENGTH = DIGEST_BITS / 6;

    private static final int DIGEST_BYTES = DIGEST_BITS / 8;
    private static final Base64.Encoder DIGEST_ENCODER = Base64.getUrlEncoder().withoutPadding();

    private Keys() {}

    /**
     * Checks a prefix, limiter or policy name: not empty, at most 256 characters, no control characters.
     *
     * @throws IllegalArgumentException naming the parameter and what was wrong
     */
    public static String checkName(String what, String name) {
        Objects.requireNonNull(name, what);
        if (name.isEmpty() || name.length() > 256) {
            throw new IllegalArgumentException(what + " must be 1 to 256 characters, was " + name.length()
                    + " characters");
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException(what + " must not contain control characters, found U+"
                        + String.format("%04X", (int) name.charAt(i)) + " at index " + i);
            }
        }
        return checkWellFormed(what, name);
    }

    /**
     * Checks that a string is well-formed UTF-16, so that it encodes to UTF-8 without loss and no two such
     * strings share a key.
     *
     * @throws IllegalArgumentException naming the parameter, the lone surrogate and its index
     */
    public static String checkWellFormed(String what, String value) {
        Objects.requireNonNull(value, what);
        for (int i = 0; i < value.length(); i++) {
            if (Character.isSurrogate(value.charAt(i))) {
                i = checkPair(what, value, i);
            }
        }
        return value;
    }

    /** The index of the low half of the pair that starts at {@code i}; throws if it is not a pair. */
    private static int checkPair(String what, String value, int i) {
        char c = value.charAt(i);
        if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
            return i + 1;
        }
        throw new IllegalArgumentException(what + " must be well-formed UTF-16 (a surrogate only as half of a"
                + " high-low pair), found a lone " + (Character.isHighSurrogate(c) ? "high" : "low") + " surrogate U+"
                + String.format("%04X", (int) c) + " at index " + i + " of " + value.length());
    }

    /**
     * The store key of a limiter: {@code <prefix>/<name>}, each segment escaped ({@link #escapePartition}).
     * Escaped segments hold no {@code /}, so a limiter's key has exactly two segments and a partition's
     * ({@link #partitionKey}) exactly three: {@code limiter("login/global")} and partition {@code global} of
     * {@code partitioned("login")} never share a key, whatever the names.
     */
    public static String limiterKey(String prefix, String name) {
        return escape("keyPrefix", prefix) + "/" + escape("name", name);
    }

    /**
     * The store key of one partition of a partitioned limiter: {@code <prefix>/<policy>/<partition>}, each
     * escaped; a partition id longer than {@value #MAX_PARTITION_ID_LENGTH} characters is stored as its hash
     * ({@link #partitionSegment}).
     */
    public static String partitionKey(String prefix, String policy, String partition) {
        return partitionKeyBase(prefix, policy) + partitionSegment(partition);
    }

    /** Partition ids up to this length are stored escaped as they are; longer ones as their {@link #digest}. */
    public static final int MAX_PARTITION_ID_LENGTH = 256;

    /**
     * A partition id as the last key segment: escaped ({@link #escapePartition}), or, when longer than
     * {@value #MAX_PARTITION_ID_LENGTH} characters, {@code %h} followed by its {@link #digest}, so a key
     * stays small whatever a caller passes. No escaped id starts with {@code %h} (an escaped {@code %} is
     * always followed by {@code 25} or {@code 2F}), so a hashed id never meets a plain one.
     */
    public static String partitionSegment(String partition) {
        Objects.requireNonNull(partition, "partition");
        return partition.length() > MAX_PARTITION_ID_LENGTH ? "%h" + encodeDigest(sha256Bytes("partition id", partition))
                : escapePartition(partition);
    }

    /** {@link #partitionKey} without the partition: {@code <prefix>/<policy>/}, each escaped. */
    public static String partitionKeyBase(String prefix, String policy) {
        return escape("keyPrefix", prefix) + "/" + escape("policy", policy) + "/";
    }

    /**
     * Escapes a partition id (or any key segment) so it stays one key segment: {@code %} and {@code /} become {@code %25} and
     * {@code %2F}, so {@code policy/a} with partition {@code b} never equals another policy's key.
     *
     * @throws IllegalArgumentException if the id is not well-formed UTF-16 ({@link #checkWellFormed})
     */
    public static String escapePartition(String partition) {
        return escape("partition id", partition);
    }

    private static String escape(String what, String segment) {
        Objects.requireNonNull(segment, what);
        boolean plain = true;
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%' || c == '/') {
                plain = false;
            } else if (Character.isSurrogate(c)) {
                i = checkPair(what, segment, i);
            }
        }
        if (plain) {
            return segment;
        }
        StringBuilder sb = new StringBuilder(segment.length() + 8);
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                sb.append("%25");
            } else if (c == '/') {
                sb.append("%2F");
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /**
     * The digest of an identifier, to store instead of it: the first {@value #DIGEST_BITS} bits of the SHA-256 of
     * its UTF-8 bytes, as {@value #DIGEST_LENGTH} base64url characters (see the class comment). For API keys, IP
     * addresses and other untrusted ids: distinct identifiers get distinct digests, and none is ever escaped.
     *
     * @throws IllegalArgumentException if the identifier is not well-formed UTF-16 ({@link #checkWellFormed}):
     *     it has no UTF-8 bytes of its own
     */
    public static String digest(String identifier) {
        return encodeDigest(sha256Bytes("identifier", identifier));
    }

    /**
     * A hash as a digest ({@link #digest}): its first {@value #DIGEST_BITS} bits as {@value #DIGEST_LENGTH}
     * base64url characters. For a hash computed elsewhere, such as an HMAC-SHA256 under a secret.
     *
     * @throws IllegalArgumentException if the hash is shorter than {@value #DIGEST_BITS} bits
     */
    public static String encodeDigest(byte[] hash) {
        Objects.requireNonNull(hash, "hash");
        if (hash.length < DIGEST_BYTES) {
            throw new IllegalArgumentException("hash must be at least " + DIGEST_BYTES + " bytes (" + DIGEST_BITS
                    + " bits), was " + hash.length + " bytes");
        }
        return DIGEST_ENCODER.encodeToString(Arrays.copyOf(hash, DIGEST_BYTES));
    }

    /**
     * The {@value #DIGEST_BITS} bits a digest holds, as bytes: the inverse of {@link #encodeDigest}.
     *
     * @throws IllegalArgumentException if {@code digest} is not {@value #DIGEST_LENGTH} base64url characters
     */
    public static byte[] decodeDigest(String digest) {
        Objects.requireNonNull(digest, "digest");
        if (digest.length() == DIGEST_LENGTH) {
            try {
                byte[] bytes = Base64.getUrlDecoder().decode(digest);
                if (bytes.length == DIGEST_BYTES) { // fewer when it ends in padding
                    return bytes;
                }
            } catch (IllegalArgumentException e) {
                // not the alphabet: reported below
            }
        }
        throw new IllegalArgumentException("digest must be " + DIGEST_LENGTH + " base64url characters (A-Z a-z 0-9 -"
                + " _, no padding), was " + (digest.length() <= 2 * DIGEST_LENGTH ? "'" + digest + "' (" : "(")
                + digest.length() + " characters)");
    }

    /**
     * The lowercase hex of the whole SHA-256 of the UTF-8 bytes (64 characters). Store keys take the shorter
     * {@link #digest}; this is for comparing with other tools' SHA-256.
     *
     * @throws IllegalArgumentException if the identifier is not well-formed UTF-16 ({@link #checkWellFormed}):
     *     it has no UTF-8 bytes of its own
     */
    public static String sha256(String identifier) {
        return HexFormat.of().formatHex(sha256Bytes("identifier", identifier));
    }

    private static byte[] sha256Bytes(String what, String identifier) {
        checkWellFormed(what, identifier);
        try {
            return MessageDigest.getInstance("SHA-256").digest(identifier.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
