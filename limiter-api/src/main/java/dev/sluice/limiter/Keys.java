package dev.sluice.limiter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * How Sluice builds store keys, and a hash for identifiers that must not be stored as they are.
 *
 * <p>Every string that becomes part of a key, or is hashed, must be well-formed UTF-16: a surrogate only as
 * half of a high-low pair. A lone surrogate has no UTF-8 encoding, and encoders (the JDK's, Hazelcast's)
 * silently replace it with {@code ?}, so {@code "bob\uD800"}, {@code "bob\uDFFF"} and {@code "bob?"} would
 * share one budget. Such a string is refused with an {@link IllegalArgumentException} naming its position.
 */
public final class Keys {
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

    /** Partition ids up to this length are stored escaped as they are; longer ones as their SHA-256. */
    public static final int MAX_PARTITION_ID_LENGTH = 256;

    /**
     * A partition id as the last key segment: escaped ({@link #escapePartition}), or, when longer than
     * {@value #MAX_PARTITION_ID_LENGTH} characters, {@code %h} followed by its {@link #sha256}, so a key
     * stays small whatever a caller passes. No escaped id starts with {@code %h} (an escaped {@code %} is
     * always followed by {@code 25} or {@code 2F}), so a hashed id never meets a plain one.
     */
    public static String partitionSegment(String partition) {
        Objects.requireNonNull(partition, "partition");
        return partition.length() > MAX_PARTITION_ID_LENGTH ? "%h" + digest("partition id", partition)
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
     * The lowercase hex SHA-256 of the UTF-8 bytes: for API keys, IP addresses and other untrusted ids.
     *
     * @throws IllegalArgumentException if the identifier is not well-formed UTF-16 ({@link #checkWellFormed}):
     *     it has no UTF-8 bytes of its own
     */
    public static String sha256(String identifier) {
        return digest("identifier", identifier);
    }

    private static String digest(String what, String identifier) {
        checkWellFormed(what, identifier);
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(identifier.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
