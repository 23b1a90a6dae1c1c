package dev.sluice.spring;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * What the Spring Security tests share: the issuer's key (its public half in a PEM file, for Spring Boot's
 * {@code spring.security.oauth2.resourceserver.jwt.public-key-location}), signed bearer tokens, Basic credentials,
 * a form login, and the common {@code sluice.*} arguments. The client never follows redirects; its generous
 * timeout is for a first request on a loaded two-core machine.
 */
final class Secured {
    private static final KeyPair KEYS = keys();
    static final Path PUBLIC_KEY = publicKeyFile();

    private Secured() {}

    /**
     * A login limit keyed on the address (5 an hour) on {@code POST /login}, the same by the default identity (the
     * address) on {@code /basic/*}, and a
     * per-client limit keyed on the principal (3 an hour) on {@code /api/*}; the key file of the resource server.
     */
    static String[] args(String... more) {
        List<String> all = new ArrayList<>(List.of("--server.port=0",
                "--spring.autoconfigure.exclude=org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
                "--spring.security.oauth2.resourceserver.jwt.public-key-location=" + PUBLIC_KEY.toUri(),
                "--sluice.policies.login-limit.algorithm=fixed-window", "--sluice.policies.login-limit.permit-limit=5",
                "--sluice.policies.login-limit.window=PT1H", "--sluice.policies.login-limit.identity=address",
                "--sluice.policies.per-client.algorithm=fixed-window", "--sluice.policies.per-client.permit-limit=3",
                "--sluice.policies.per-client.window=PT1H", "--sluice.policies.per-client.identity=principal",
                "--sluice.policies.reports.algorithm=fixed-window", "--sluice.policies.reports.permit-limit=2",
                "--sluice.policies.reports.window=PT1H",
                "--sluice.routes.login.pattern=/login", "--sluice.routes.login.methods=POST",
                "--sluice.routes.login.policy=login-limit",
                "--sluice.policies.guesses.algorithm=fixed-window", "--sluice.policies.guesses.permit-limit=5",
                "--sluice.policies.guesses.window=PT1H",
                "--sluice.routes.basic.pattern=/basic/*", "--sluice.routes.basic.policy=guesses",
                "--sluice.routes.api.pattern=/api/*", "--sluice.routes.api.policy=per-client"));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static KeyPair keys() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path publicKeyFile() {
        try {
            Path file = Files.createTempFile("sluice-issuer", ".pem");
            file.toFile().deleteOnExit();
            String pem = "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(KEYS.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n";
            Files.writeString(file, pem);
            return file;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A bearer token for {@code subject}, valid for an hour, signed by the issuer's key. */
    static String token(String subject) {
        return token(subject, java.util.Map.of());
    }

    /** A bearer token for {@code subject} carrying {@code claims} too, valid for an hour, signed by the issuer's key. */
    static String token(String subject, java.util.Map<String, Object> claims) {
        try {
            JWTClaimsSet.Builder set = new JWTClaimsSet.Builder().subject(subject).issueTime(new Date())
                    .expirationTime(Date.from(Instant.now().plusSeconds(3600)));
            claims.forEach(set::claim);
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), set.build());
            jwt.sign(new RSASSASigner((RSAPrivateKey) KEYS.getPrivate()));
            return jwt.serialize();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static int get(int port, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client().send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    static int bearer(int port, String path, String subject) throws Exception {
        return get(port, path, "Authorization", "Bearer " + token(subject));
    }

    static int basic(int port, String path, String user, String password) throws Exception {
        return get(port, path, "Authorization", "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }

    /** A form login's status: a redirect, to the target or to {@code /login?error}, or what Sluice answered. */
    static HttpResponse<Void> login(int port, String user, String password) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/login"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("username=" + user + "&password=" + password)).build();
        return client().send(request, HttpResponse.BodyHandlers.discarding());
    }

    /**
     * A client of its own for each request, so each is on a new connection, as a guesser's usually is. A run on
     * a shared keep-alive connection hung at times on WebFlux after a series of 401s and 429s (not understood).
     */
    private static HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }
}
