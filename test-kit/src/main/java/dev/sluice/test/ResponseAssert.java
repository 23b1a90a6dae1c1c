package dev.sluice.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Assertions on one HTTP answer as Sluice's edge writes it: the status, {@code Retry-After}, and the
 * {@code RateLimit-Policy} and {@code RateLimit} fields (one item per policy that applied, with its remaining
 * {@code r}). Each method returns this object, so checks chain; each failure is an {@link AssertionError} naming
 * what was expected and what the answer carried.
 *
 * <p>Made by {@link SluiceAssertions#assertThat(java.net.http.HttpResponse)}, by the Spring assertions for
 * MockMvc and WebTestClient, or by {@link #of} for any other client.
 */
public final class ResponseAssert {
    private static final String RETRY_AFTER = "Retry-After";
    private static final String POLICY = "RateLimit-Policy";
    private static final String RATE_LIMIT = "RateLimit";
    /** One item of the {@code RateLimit} field: an sf-string name, then its parameters. */
    private static final Pattern ITEM = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"((?:\\s*;\\s*[a-z0-9*_.-]+=[^;,]*)*)");
    private static final Pattern REMAINING = Pattern.compile(";\\s*r=(\\d+)");

    private final String what;
    private final int status;
    private final Function<String, List<String>> headers;

    private ResponseAssert(String what, int status, Function<String, List<String>> headers) {
        this.what = what;
        this.status = status;
        this.headers = headers;
    }

    /**
     * Assertions on an answer of any HTTP client.
     *
     * @param what how failures name the answer, e.g. {@code "GET /api/hello"}
     * @param status the answer's status code
     * @param headers every value of a header field, by its name (matched regardless of case); empty when absent
     */
    public static ResponseAssert of(String what, int status, Function<String, List<String>> headers) {
        return new ResponseAssert(Objects.requireNonNull(what, "what"), status, Objects.requireNonNull(headers, "headers"));
    }

    /**
     * Checks that the edge refused the request for its rate limit: status {@code 429}, a {@code Retry-After} of
     * whole seconds, at least 1, and the {@code RateLimit-Policy} and {@code RateLimit} fields (which an
     * application that switched the headers off does not write; check the status alone there).
     */
    public ResponseAssert isRateLimited() {
        if (status != 429) {
            throw failure("to be rate limited (429 Too Many Requests), but the status was " + status);
        }
        retryAfterSeconds();
        for (String field : List.of(POLICY, RATE_LIMIT)) {
            if (header(field) == null) {
                throw failure("to be rate limited with the " + field + " field the edge writes, but it was absent");
            }
        }
        return this;
    }

    /**
     * Checks that the edge let the request through: neither {@code 429} nor the {@code 503} the edge answers when
     * the store could not decide (the application's own answer, whatever its status, passes).
     */
    public ResponseAssert isAllowed() {
        if (status == 429) {
            throw failure("to be allowed, but it was rate limited (429, Retry-After " + header(RETRY_AFTER)
                    + ", RateLimit " + header(RATE_LIMIT) + ")");
        }
        if (status == 503 && header(POLICY) != null) {
            throw failure("to be allowed, but the store could not decide (503, RateLimit-Policy "
                    + header(POLICY) + ")");
        }
        return this;
    }

    /** Checks the status code. */
    public ResponseAssert hasStatus(int expected) {
        if (status != expected) {
            throw failure("to have status " + expected + ", but it was " + status);
        }
        return this;
    }

    /**
     * Checks the remaining of the one policy that applied, as the {@code RateLimit} field gives it.
     *
     * @throws AssertionError also when several policies applied: name one with {@link #hasRemaining(String, long)}
     */
    public ResponseAssert hasRemaining(long expected) {
        Map<String, Long> remaining = remaining();
        if (remaining.size() != 1) {
            throw failure("to carry the remaining of one policy, but its RateLimit field has " + remaining
                    + "; name the policy with hasRemaining(policy, " + expected + ")");
        }
        return hasRemaining(remaining.keySet().iterator().next(), expected);
    }

    /** Checks the remaining of {@code policy}, as its item of the {@code RateLimit} field gives it. */
    public ResponseAssert hasRemaining(String policy, long expected) {
        Objects.requireNonNull(policy, "policy");
        Map<String, Long> remaining = remaining();
        Long found = remaining.get(policy);
        if (found == null) {
            throw failure("to carry the remaining of policy \"" + policy + "\", but its RateLimit field has "
                    + (remaining.isEmpty() ? "no items" : remaining.toString()));
        }
        if (found != expected) {
            throw failure("to have " + expected + " remaining for policy \"" + policy + "\", but it had " + found);
        }
        return this;
    }

    /**
     * Checks {@code Retry-After}: the wait in whole seconds, as the edge rounds it up.
     *
     * @throws IllegalArgumentException when {@code expected} is not a whole, positive number of seconds, which no
     *         {@code Retry-After} can carry
     */
    public ResponseAssert hasRetryAfter(Duration expected) {
        Objects.requireNonNull(expected, "expected");
        if (expected.isNegative() || expected.isZero() || expected.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("expected must be a whole, positive number of seconds (Retry-After"
                    + " carries seconds), was " + expected);
        }
        long found = retryAfterSeconds();
        if (found != expected.toSeconds()) {
            throw failure("to have Retry-After " + expected.toSeconds() + " seconds, but it was " + found);
        }
        return this;
    }

    /** Checks that {@code policy} is listed in the {@code RateLimit-Policy} field (it applied to the request). */
    public ResponseAssert hasPolicy(String policy) {
        Objects.requireNonNull(policy, "policy");
        String field = header(POLICY);
        List<String> names = field == null ? List.of() : names(field);
        if (!names.contains(policy)) {
            throw failure("to list policy \"" + policy + "\" in RateLimit-Policy, but it listed "
                    + (field == null ? "nothing (the field was absent)" : names));
        }
        return this;
    }

    private long retryAfterSeconds() {
        String value = header(RETRY_AFTER);
        if (value == null) {
            throw failure("to carry Retry-After, but it was absent");
        }
        try {
            long seconds = Long.parseLong(value.strip());
            if (seconds >= 1) {
                return seconds;
            }
        } catch (NumberFormatException notSeconds) {
            // the same failure as a number below one
        }
        throw failure("to carry Retry-After as whole seconds, at least 1, but it was \"" + value + "\"");
    }

    /** Policy name to its {@code r}, in the order of the {@code RateLimit} field; empty when it is absent. */
    private Map<String, Long> remaining() {
        Map<String, Long> remaining = new LinkedHashMap<>();
        String field = header(RATE_LIMIT);
        if (field != null) {
            Matcher item = ITEM.matcher(field);
            while (item.find()) {
                Matcher r = REMAINING.matcher(item.group(2));
                if (r.find()) {
                    remaining.put(unescape(item.group(1)), Long.parseLong(r.group(1)));
                }
            }
        }
        return remaining;
    }

    private static List<String> names(String field) {
        List<String> names = new ArrayList<>();
        Matcher item = ITEM.matcher(field);
        while (item.find()) {
            names.add(unescape(item.group(1)));
        }
        return names;
    }

    private static String unescape(String sfString) {
        return sfString.replaceAll("\\\\(.)", "$1");
    }

    /** The field's values joined as one list would be on the wire, or null when absent. */
    private String header(String name) {
        List<String> values = headers.apply(name);
        return values == null || values.isEmpty() ? null : String.join(", ", values);
    }

    private AssertionError failure(String expectation) {
        return new AssertionError("Expected " + what + " " + expectation);
    }
}
