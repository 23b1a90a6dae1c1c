package dev.sluice.http;

import dev.sluice.limiter.Keys;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a client identity becomes the partition of its store key. Without a secret it is the identity's plain
 * SHA-256 digest ({@link Keys#digest}): a reader of the store can reverse it by hashing candidates (every address
 * of a /16 takes a moment). With one it is the digest of its HMAC-SHA256 under the secret ({@link Keys#encodeDigest}),
 * which the store never holds, so a reader of the store learns nothing about who a key counts. Replicas that share a store must key alike, or each client
 * gets a budget per key; the secret's fingerprint (an HMAC of a fixed label, from which the secret cannot be
 * recovered) is what they compare through the store.
 */
final class IdentityKeys {
    /** The environment variable read when no secret is configured. */
    static final String ENVIRONMENT = "SLUICE_IDENTITY_SECRET";
    /** The shortest secret accepted, in characters. */
    static final int MIN_LENGTH = 16;
    /** The name under the key prefix where the fingerprint is kept; no policy name starts with {@code #}. */
    static final String FINGERPRINT_NAME = "#identity-secret-fingerprint";

    private static final long MAGIC = 0x534c_5549_4345_4944L; // "SLUICEID": a value no algorithm writes
    private static final String LABEL = "sluice identity-secret fingerprint v1";
    static final IdentityKeys UNKEYED = new IdentityKeys(null);

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs;

    private IdentityKeys(byte[] secret) {
        this.key = secret == null ? null : new SecretKeySpec(secret, "HmacSHA256");
        this.macs = secret == null ? null : ThreadLocal.withInitial(this::newMac);
    }

    static IdentityKeys keyed(String secret) {
        return new IdentityKeys(secret.getBytes(StandardCharsets.UTF_8));
    }

    /** Refuses a secret too short to resist guessing; the message never shows it. */
    static void check(String property, String secret) {
        if (secret.strip().length() < MIN_LENGTH) {
            throw new IllegalArgumentException("invalid " + (property.startsWith("environment") ? property
                    : "property " + property) + " (a secret of " + secret.length() + " characters, not shown);"
                    + " expected at least " + MIN_LENGTH + " characters, the same on every replica, such as 32 random"
                    + " bytes in Base64 (openssl rand -base64 32)");
        }
    }

    boolean keyed() {
        return key != null;
    }

    /**
     * The partition of {@code identity}: the digest ({@link Keys#DIGEST_LENGTH} base64url characters) of its
     * HMAC-SHA256 under the secret, or of its SHA-256 without one.
     *
     * @throws IllegalArgumentException if {@code identity} is not well-formed UTF-16
     */
    String partition(String identity) {
        if (key == null) {
            return Keys.digest(identity);
        }
        return Keys.encodeDigest(macs.get().doFinal(utf8(identity)));
    }

    /** The words kept in the store: a marker, then 128 bits of the secret's fingerprint (zero without one). */
    long[] fingerprint() {
        if (key == null) {
            return new long[] {MAGIC, 0, 0};
        }
        ByteBuffer bytes = ByteBuffer.wrap(newMac().doFinal(LABEL.getBytes(StandardCharsets.US_ASCII)));
        return new long[] {MAGIC, bytes.getLong(), bytes.getLong()};
    }

    /** How a fingerprint is shown in messages: 8 hex digits, or "none" for identities stored unkeyed. */
    static String shown(long[] fingerprint) {
        if (fingerprint.length != 3 || fingerprint[0] != MAGIC) {
            return "an unknown value";
        }
        if (fingerprint[1] == 0 && fingerprint[2] == 0) {
            return "none (no secret)";
        }
        return String.format("%08x", fingerprint[1] >>> 32);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
        }
    }

    private static byte[] utf8(String identity) {
        try {
            ByteBuffer b = StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(identity));
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            return bytes;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("identity is not well-formed UTF-16", e);
        }
    }
}
