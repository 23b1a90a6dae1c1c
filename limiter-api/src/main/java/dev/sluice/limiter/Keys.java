package dev.sluice.limiter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/** How Sluice builds store keys, and a hash for identifiers that must not be stored as they are. */
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
        return name;
    }

    /**
     * The store key of a limiter: {@code <prefix>/<name>}, each segment escaped ({@link #escapePartition}).
     * Escaped segments hold no {@code /}, so a limiter's key has exactly two segments and a partition's
     * ({@link #partitionKey}) exactly three: {@code limiter("login/global")} and partition {@code global} of
     * {@code partitioned("login")} never share a key, whatever the names.
     */
    public static String limiterKey(String prefix, String name) {
        return escapePartition(prefix) + "/" + escapePartition(name);
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
        return partition.length() > MAX_PARTITION_ID_LENGTH ? "%h" + sha256(partition) : escapePartition(partition);
    }

    /** {@link #partitionKey} without the partition: {@code <prefix>/<policy>/}, each escaped. */
    public static String partitionKeyBase(String prefix, String policy) {
        return escapePartition(prefix) + "/" + escapePartition(policy) + "/";
    }

    /**
     * Escapes a partition id (or any key segment) so it stays one key segment: {@code %} and {@code /} become {@code %25} and
     * {@code %2F}, so {@code policy/a} with partition {@code b} never equals another policy's key.
     */
    public static String escapePartition(String partition) {
        Objects.requireNonNull(partition, "partition");
        if (partition.indexOf('%') < 0 && partition.indexOf('/') < 0) {
            return partition;
        }
        StringBuilder sb = new StringBuilder(partition.length() + 8);
        for (int i = 0; i < partition.length(); i++) {
            char c = partition.charAt(i);
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

    /** The lowercase hex SHA-256 of the UTF-8 bytes: for API keys, IP addresses and other untrusted ids. */
    public static String sha256(String identifier) {
        Objects.requireNonNull(identifier, "identifier");
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(identifier.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
