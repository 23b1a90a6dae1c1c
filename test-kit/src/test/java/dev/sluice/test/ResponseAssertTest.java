package dev.sluice.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** What each assertion accepts and how it says what it found, on answers written as the edge writes them. */
final class ResponseAssertTest {

    /** An answer with these header fields (name, value, name, value, ...), names matched regardless of case. */
    private static ResponseAssert answer(int status, String... fields) {
        Map<String, List<String>> headers = new TreeMap<>();
        for (int i = 0; i < fields.length; i += 2) {
            headers.put(fields[i].toLowerCase(Locale.ROOT), List.of(fields[i + 1]));
        }
        return ResponseAssert.of("GET /api/hello", status, name -> headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()));
    }

    private static final String[] REFUSED = {"Retry-After", "60", "RateLimit-Policy", "\"per-client\";q=10;w=60",
        "RateLimit", "\"per-client\";r=0;t=60"};

    private static String failure(org.junit.jupiter.api.function.Executable check) {
        return assertThrows(AssertionError.class, check).getMessage();
    }

    @Test
    void isRateLimited_passesOnTheEdgesRefusal() {
        answer(429, REFUSED).isRateLimited().hasRetryAfter(Duration.ofMinutes(1)).hasRemaining(0)
                .hasRemaining("per-client", 0).hasPolicy("per-client");
    }

    @Test
    void isRateLimited_onAnAllowedAnswer_namesTheStatus() {
        assertEquals("Expected GET /api/hello to be rate limited (429 Too Many Requests), but the status was 200",
                failure(() -> answer(200, "RateLimit", "\"per-client\";r=9").isRateLimited()));
    }

    @Test
    void isRateLimited_withoutRetryAfter_saysItWasAbsent() {
        assertEquals("Expected GET /api/hello to carry Retry-After, but it was absent",
                failure(() -> answer(429, "RateLimit-Policy", "\"p\";q=1;w=1", "RateLimit", "\"p\";r=0").isRateLimited()));
    }

    @Test
    void isRateLimited_withRetryAfterAsADate_saysSecondsWereExpected() {
        assertEquals("Expected GET /api/hello to carry Retry-After as whole seconds, at least 1, but it was"
                + " \"Wed, 21 Oct 2015 07:28:00 GMT\"", failure(() -> answer(429, "Retry-After",
                "Wed, 21 Oct 2015 07:28:00 GMT").isRateLimited()));
    }

    @Test
    void isRateLimited_withoutTheRateLimitFields_namesTheMissingOne() {
        assertEquals("Expected GET /api/hello to be rate limited with the RateLimit-Policy field the edge writes, but"
                + " it was absent", failure(() -> answer(429, "Retry-After", "5").isRateLimited()));
        assertEquals("Expected GET /api/hello to be rate limited with the RateLimit field the edge writes, but it was"
                + " absent", failure(() -> answer(429, "Retry-After", "5", "RateLimit-Policy", "\"p\";q=1;w=1")
                .isRateLimited()));
    }

    @Test
    void isAllowed_onARefusal_namesItsHeaders() {
        assertEquals("Expected GET /api/hello to be allowed, but it was rate limited (429, Retry-After 60, RateLimit"
                + " \"per-client\";r=0;t=60)", failure(() -> answer(429, REFUSED).isAllowed()));
    }

    @Test
    void isAllowed_onTheEdgesUnavailableAnswer_fails_butNotOnTheApplicationsOwn503() {
        assertEquals("Expected GET /api/hello to be allowed, but the store could not decide (503, RateLimit-Policy"
                + " \"p\";q=1;w=1)", failure(() -> answer(503, "RateLimit-Policy", "\"p\";q=1;w=1").isAllowed()));
        answer(503).isAllowed();
        answer(200).isAllowed();
    }

    @Test
    void hasRemaining_namesWhatTheFieldCarried() {
        assertEquals("Expected GET /api/hello to have 5 remaining for policy \"per-client\", but it had 9",
                failure(() -> answer(200, "RateLimit", "\"per-client\";r=9;t=60").hasRemaining(5)));
        assertEquals("Expected GET /api/hello to carry the remaining of policy \"login\", but its RateLimit field has"
                + " {per-client=9}", failure(() -> answer(200, "RateLimit", "\"per-client\";r=9").hasRemaining("login", 1)));
        assertEquals("Expected GET /api/hello to carry the remaining of policy \"login\", but its RateLimit field has"
                + " no items", failure(() -> answer(200).hasRemaining("login", 1)));
    }

    @Test
    void hasRemaining_withSeveralPolicies_asksForOneByName() {
        ResponseAssert two = answer(200, "RateLimit", "\"per-client\";r=9;t=60, \"login\";r=4;t=60");
        two.hasRemaining("login", 4).hasRemaining("per-client", 9);
        assertEquals("Expected GET /api/hello to carry the remaining of one policy, but its RateLimit field has"
                + " {per-client=9, login=4}; name the policy with hasRemaining(policy, 4)", failure(() -> two.hasRemaining(4)));
    }

    @Test
    void hasRetryAfter_comparesWholeSeconds_andRefusesAWaitNoHeaderCanCarry() {
        assertEquals("Expected GET /api/hello to have Retry-After 30 seconds, but it was 60",
                failure(() -> answer(429, REFUSED).hasRetryAfter(Duration.ofSeconds(30))));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> answer(429, REFUSED).hasRetryAfter(Duration.ofMillis(1500)));
        assertEquals("expected must be a whole, positive number of seconds (Retry-After carries seconds), was PT1.5S",
                e.getMessage());
    }

    @Test
    void hasPolicy_listsThePoliciesThatApplied() {
        assertEquals("Expected GET /api/hello to list policy \"login\" in RateLimit-Policy, but it listed [per-client]",
                failure(() -> answer(429, REFUSED).hasPolicy("login")));
        assertEquals("Expected GET /api/hello to list policy \"login\" in RateLimit-Policy, but it listed nothing (the"
                + " field was absent)", failure(() -> answer(200).hasPolicy("login")));
    }

    @Test
    void hasStatus_namesBoth() {
        assertEquals("Expected GET /api/hello to have status 201, but it was 200", failure(() -> answer(200).hasStatus(201)));
    }
}
