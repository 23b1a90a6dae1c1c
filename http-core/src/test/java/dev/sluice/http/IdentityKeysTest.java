package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.io.StringReader;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client identities become store keys under a keyed hash when a secret is set, and replicas keyed differently
 * are refused at start-up through the store. Bug: keys were always unsalted SHA-256 of {@code ip:<address>},
 * which a reader of the Hazelcast map reversed by hashing every address of 127.0.0.0/16.
 */
final class IdentityKeysTest {
    private static final String SECRET = "correct horse battery staple";
    private static final String OTHER = "another secret, 16+ chars";
    private final Map<String, long[]> sharedStore = new ConcurrentHashMap<>();
    private final RateLimiters local = LocalRateLimiters.create();
    private boolean unreachable;

    @AfterEach
    void close() {
        local.close();
    }

    private static HttpRateLimiterConfig.Builder login() {
        return HttpRateLimiterConfig.builder().environment(name -> null)
                .policy("login", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
    }

    @Test
    void secret_partitionIsHmacSha256OfTheIdentity_notItsPlainHash() throws Exception {
        HttpRateLimiter keyed = new HttpRateLimiter(local, login().identitySecret(SECRET).build());
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        // The first 144 bits of the HMAC, in base64url.
        String expected = Base64.getUrlEncoder().withoutPadding().encodeToString(
                Arrays.copyOf(mac.doFinal("ip:127.0.0.101".getBytes(StandardCharsets.UTF_8)), 18));

        assertEquals(expected, keyed.partition("ip:127.0.0.101"));
        assertNotEquals(Keys.digest("ip:127.0.0.101"), keyed.partition("ip:127.0.0.101"));
        assertTrue(keyed.identitiesKeyed());
        keyed.close();
    }

    @Test
    void noSecret_partitionIsPlainSha256_andSaysSo() {
        HttpRateLimiter plain = new HttpRateLimiter(local, login().build());
        assertEquals(Keys.digest("ip:127.0.0.101"), plain.partition("ip:127.0.0.101"));
        assertFalse(plain.identitiesKeyed());
        plain.close();
    }

    @Test
    void differentSecrets_differentPartitions_sameSecret_same() {
        HttpRateLimiter a = new HttpRateLimiter(local, login().identitySecret(SECRET).build());
        HttpRateLimiter b = new HttpRateLimiter(LocalRateLimiters.create(), login().identitySecret(SECRET).build());
        HttpRateLimiter c = new HttpRateLimiter(LocalRateLimiters.create(), login().identitySecret(OTHER).build());
        assertEquals(a.partition("ip:10.0.0.1"), b.partition("ip:10.0.0.1"));
        assertNotEquals(a.partition("ip:10.0.0.1"), c.partition("ip:10.0.0.1"));
        assertNotEquals(a.partition("ip:10.0.0.1"), a.partition("ip:10.0.0.2"));
    }

    @Test
    void malformedIdentity_refusedAsBefore() {
        HttpRateLimiter keyed = new HttpRateLimiter(local, login().identitySecret(SECRET).build());
        assertThrows(IllegalArgumentException.class, () -> keyed.partition("ip:\uD800"));
    }

    /** Two replicas on one shared store with different secrets: the second one refuses to start, never shows a secret. */
    @Test
    void replicasWithDifferentSecrets_secondFailsAtStartUp_namingTheFix() {
        new HttpRateLimiter(shared(), login().identitySecret(SECRET).build());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new HttpRateLimiter(shared(), login().identitySecret(OTHER).build()));
        assertTrue(e.getMessage().startsWith("the replicas sharing this store key client identities differently"),
                e.getMessage());
        assertTrue(e.getMessage().contains("sluice.client.identity-secret")
                && e.getMessage().contains("SLUICE_IDENTITY_SECRET")
                && e.getMessage().contains("'sluice/#identity-secret-fingerprint'"), e.getMessage());
        assertFalse(e.getMessage().contains(SECRET) || e.getMessage().contains(OTHER), e.getMessage());

        assertDoesNotThrow(() -> new HttpRateLimiter(shared(), login().identitySecret(SECRET).build()));
    }

    @Test
    void replicaWithoutSecret_besideOneWithASecret_fails_eitherOrder() {
        new HttpRateLimiter(shared(), login().identitySecret(SECRET).build());
        assertTrue(assertThrows(IllegalStateException.class, () -> new HttpRateLimiter(shared(), login().build()))
                .getMessage().contains("this one with identity-secret fingerprint none (no secret)"));

        sharedStore.clear();
        new HttpRateLimiter(shared(), login().build());
        assertTrue(assertThrows(IllegalStateException.class,
                () -> new HttpRateLimiter(shared(), login().identitySecret(SECRET).build()))
                .getMessage().contains(", the store with none (no secret)"));
    }

    /** A store that does not answer at start-up does not stop the replica: the failure modes answer meanwhile. */
    @Test
    void storeUnreachableAtStartUp_replicaStarts() {
        unreachable = true;
        assertDoesNotThrow(() -> new HttpRateLimiter(shared(), login().identitySecret(SECRET).build()).close());
        assertTrue(sharedStore.isEmpty());
    }

    /** The store keeps a fingerprint: a fixed-label HMAC, never the secret or a plain hash of it. */
    @Test
    void storedFingerprint_isNotTheSecret() {
        new HttpRateLimiter(shared(), login().identitySecret(SECRET).build());
        long[] held = sharedStore.get("sluice/#identity-secret-fingerprint");
        assertEquals(3, held.length);
        String words = Long.toHexString(held[1]) + Long.toHexString(held[2]);
        assertFalse(Keys.sha256(SECRET).startsWith(words.substring(0, 8)));
    }

    @Test
    void shortSecret_refused_withoutShowingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.fromProperties(props("sluice.client.identity-secret=hunter2")));
        assertEquals("invalid property sluice.client.identity-secret (a secret of 7 characters, not shown); expected"
                + " at least 16 characters, the same on every replica, such as 32 random bytes in Base64 (openssl"
                + " rand -base64 32)", e.getMessage());
    }

    @Test
    void secretFromProperties_orTheEnvironment_keysIdentities() {
        assertTrue(HttpRateLimiterConfig.builder().environment(name -> null)
                .properties(props("sluice.client.identity-secret=" + SECRET)).build().identitiesKeyed());
        Function<String, String> environment = name -> name.equals("SLUICE_IDENTITY_SECRET") ? SECRET : null;
        HttpRateLimiterConfig fromEnvironment = login().environment(environment).build();
        assertTrue(fromEnvironment.identitiesKeyed());
        assertEquals(new HttpRateLimiter(local, login().identitySecret(SECRET).build()).partition("ip:1.2.3.4"),
                new HttpRateLimiter(LocalRateLimiters.create(), fromEnvironment).partition("ip:1.2.3.4"));
        assertFalse(login().environment(name -> "").build().identitiesKeyed());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> login().environment(name -> "short").build())
                .getMessage().startsWith("invalid environment variable SLUICE_IDENTITY_SECRET (a secret of 5"));
    }

    @Test
    void settingsToString_neverShowsTheSecret() {
        SluiceSettings.ClientSettings client = new SluiceSettings.ClientSettings();
        client.setIdentitySecret(SECRET);
        String text = client.toString();
        assertFalse(text.contains(SECRET), text);
        assertTrue(text.contains("identitySecret=(set)"), text);
    }

    private static Properties props(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        return p;
    }

    /** A replica on a store that other replicas share: in-process limiters, one shared map of values. */
    private RateLimiters shared() {
        RateLimiters store = LocalRateLimiters.create();
        return new RateLimiters() {
            @Override public String keyPrefix() { return store.keyPrefix(); }

            @Override
            public RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options) {
                return store.limiter(name, spec, options);
            }

            @Override
            public <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
                    Function<? super P, String> partitionId) {
                return store.partitioned(policy, spec, options, partitionId);
            }

            @Override
            public long[] sharedValue(String name, long[] words) {
                if (unreachable) {
                    throw new IllegalStateException("the cluster is offline");
                }
                long[] held = sharedStore.putIfAbsent(keyPrefix() + "/" + name, words.clone());
                return held != null ? held : words;
            }

            @Override public void close() { store.close(); }
        };
    }
}
