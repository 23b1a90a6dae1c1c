package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.QueueOrder;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The decision sequence of a request, on an in-process store: both drivers (the blocking {@code decide} and the
 * asynchronous {@code decideAsync}) give the same answers, each policy is asked once per request, a refusal gives
 * back what the earlier policies granted and shows it in the headers, and the gateway's form ends at the refusal.
 */
final class HttpRateLimiterTest {
    private final ManualClock clock = new ManualClock();
    private final List<RateLimiters> opened = new ArrayList<>();
    private final List<HttpRateLimiter> created = new ArrayList<>();

    @AfterEach
    void close() {
        created.forEach(HttpRateLimiter::close);
        opened.forEach(RateLimiters::close);
    }

    private HttpRateLimiter limiter(RateLimiters limiters, HttpRateLimiterConfig config) {
        HttpRateLimiter r = new HttpRateLimiter(limiters, config);
        created.add(r);
        return r;
    }

    private HttpRateLimiter limiter(HttpRateLimiterConfig config) {
        RateLimiters limiters = LocalRateLimiters.create(clock);
        opened.add(limiters);
        return limiter(limiters, config);
    }

    /** Per client 3 a minute and 100 a day, and 1,000 a minute for everyone. */
    private static HttpRateLimiterConfig threeTiers() {
        return HttpRateLimiterConfig.builder()
                .policy("per-client", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)))
                .policy("daily", LimitSpec.fixedWindow(100, Duration.ofDays(1)))
                .policy(RateLimitPolicy.of("everyone", LimitSpec.fixedWindow(1_000, Duration.ofMinutes(1)))
                        .withIdentity(ClientIdentityResolver.global()))
                .route(Route.of("/api/*", "daily", "per-client", "everyone"))
                .build();
    }

    private static String header(HttpDecision d, String name) {
        return d.headers().stream().filter(h -> h.getKey().equals(name)).map(Map.Entry::getValue).findFirst()
                .orElse(null);
    }

    private static String answer(HttpDecision d) {
        return d.status() + " " + d.headers() + " " + d.bodyText();
    }

    /** One rule for both drivers: every answer of a run alike, with the same statistics after. */
    @Test
    void blockingAndAsynchronous_sameAnswers_sameStatistics() {
        HttpRateLimiter blocking = limiter(threeTiers());
        HttpRateLimiter async = limiter(threeTiers());
        for (int i = 0; i < 6; i++) {
            Requests request = Requests.of("GET", "/api/x").from(i % 2 == 0 ? "192.0.2.1" : "192.0.2.2");
            assertEquals(answer(blocking.decide(request)), answer(async.decideAsync(request).join()), "request " + i);
        }
        assertEquals(blocking.statistics(), async.statistics());
    }

    /**
     * A refusal: the earlier policy's grant is given back (its header shows it back), the later one is asked once
     * with a probe (counted as skipped), and every header comes from those answers.
     */
    @Test
    void refusal_earlierGrantRefunded_laterProbedOnce_headersFromTheAnswers() {
        HttpRateLimiter r = limiter(threeTiers());
        Requests request = Requests.of("GET", "/api/x");
        for (int i = 0; i < 3; i++) {
            assertTrue(r.decide(request).proceeds());
        }

        HttpDecision refused = r.decide(request);
        assertEquals(429, refused.status());
        assertEquals("\"daily\";r=97;t=86400, \"per-client\";r=0;t=60, \"everyone\";r=997;t=60",
                header(refused, "RateLimit"));
        assertTrue(refused.bodyText().contains("\"violated-policies\":[\"per-client\"]"), refused.bodyText());
        assertEquals(new PolicyStatistics(4, 0, 0, 0, 0, 0), r.statistics().get("daily"));
        assertEquals(new PolicyStatistics(3, 1, 0, 0, 0, 0), r.statistics().get("per-client"));
        assertEquals(new PolicyStatistics(3, 0, 0, 0, 0, 1), r.statistics().get("everyone"));
        // The refused request took nothing: the daily budget still has 97.
        assertEquals(97, r.limiter("daily").tryAcquire(r.partition(r.identity(request)), 0).remaining());
    }

    /** The gateway's form: ends at the refusing policy, whose headers alone it answers; the later is not asked. */
    @Test
    void keyed_refusal_endsThere_headersOfTheRefusingPolicyOnly() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.builder()
                .policy("wide", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)))
                .policy("tight", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .policy("after", LimitSpec.fixedWindow(10, Duration.ofMinutes(1))).build());
        List<String> policies = List.of("wide", "tight", "after");
        HttpDecision granted = r.decideAsync("key:1", policies, 1).join();
        assertTrue(granted.proceeds());

        HttpDecision refused = r.decideAsync("key:1", policies, 1).join();
        assertEquals(429, refused.status());
        assertEquals("\"tight\";q=1;w=60", header(refused, "RateLimit-Policy"));
        assertEquals("60", header(refused, "Retry-After"));
        assertEquals(new PolicyStatistics(1, 0, 0, 0, 0, 0), r.statistics().get("after"));
        assertEquals(9, r.limiter("wide").tryAcquire(r.partition("key:1"), 0).remaining()); // refunded
    }

    @Test
    void keyed_noDecisionUnderThrow_failsWithTheStoresFailure() {
        HttpRateLimiterConfig config = HttpRateLimiterConfig.builder()
                .policy(new RateLimitPolicy("p", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)),
                        LimiterOptions.builder().failureMode(FailureMode.THROW).build()))
                .route(Route.of("/*", "p")).build();
        HttpRateLimiter r = limiter(new Unreachable(), config);

        CompletionException e = assertThrows(CompletionException.class,
                () -> r.decideAsync("key:1", List.of("p"), 1).join());
        assertInstanceOf(DecisionUnavailableException.class, e.getCause());
        // A request's form answers 503 instead, on either driver.
        assertEquals(503, r.decideAsync(Requests.of("GET", "/x")).join().status());
        assertEquals(503, r.decide(Requests.of("GET", "/x")).status());
    }

    /** A caller who gives up while a policy waits in its queue gets nothing, and the earlier grant goes back. */
    @Test
    void async_cancelledWhileQueued_earlierGrantGoesBack() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.builder()
                .policy("wide", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)))
                .policy(new RateLimitPolicy("queued", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                        RateLimitPolicy.EDGE_DEFAULTS.toBuilder().queueLimit(1).build()))
                .route(Route.of("/*", "wide", "queued")).build());
        Requests request = Requests.of("GET", "/x");
        assertTrue(r.decideAsync(request).join().proceeds());

        CompletableFuture<HttpDecision> waiting = r.decideAsync(request);
        assertFalse(waiting.isDone());
        String partition = r.partition(r.identity(request));
        assertEquals(8, r.limiter("wide").tryAcquire(partition, 0).remaining());
        waiting.cancel(false);
        assertEquals(9, r.limiter("wide").tryAcquire(partition, 0).remaining());
    }

    /**
     * Bug: a shadow policy's options were rebuilt field by field and lost {@code replaceForeignState}; they are
     * the policy's own, each listener told of a would-be refusal as a shadow refusal.
     */
    @Test
    void shadowPolicy_keepsEveryOption() {
        DecisionListener listener = (name, result, nanos) -> {};
        LimiterOptions options = LimiterOptions.builder().queueLimit(3).queueOrder(QueueOrder.NEWEST_FIRST)
                .failureMode(FailureMode.DENY).maxRetries(1).decisionTimeout(Duration.ofMillis(300))
                .renewInterval(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                .durability(Durability.EPHEMERAL).replaceForeignState(true).listener(listener).build();
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.builder().shadow(true)
                .policy(new RateLimitPolicy("p", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), options)).build());

        LimiterOptions shadowed = r.limiter("p").options();
        assertTrue(shadowed.replaceForeignState());
        assertEquals(options.toString(), shadowed.toString());
        assertEquals(1, shadowed.listeners().size());
        assertTrue(shadowed.listeners().get(0) != listener, "wrapped, to tell would-be refusals apart");
    }

    /** A store that never answers: every decision fails as an unreachable store's would. */
    private static final class Unreachable implements RateLimiters {
        @Override public String keyPrefix() { return "sluice"; }

        @Override
        public RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
                Function<? super P, String> partitionId) {
            return new PartitionedRateLimiter<>() {
                @Override public String name() { return policy; }
                @Override public LimitSpec spec() { return spec; }
                @Override public LimiterOptions options() { return options; }
                @Override public String keyOf(P partition) { return policy + "/" + partitionId.apply(partition); }
                @Override public LimiterStatistics statistics() { throw new UnsupportedOperationException(); }
                @Override public void close() {}

                private DecisionUnavailableException unavailable() {
                    return new DecisionUnavailableException(policy, "the store did not answer", null);
                }

                @Override
                public Lease tryAcquire(P partition, long permits) {
                    throw unavailable();
                }

                @Override
                public CompletableFuture<Lease> acquireAsync(P partition, long permits) {
                    return CompletableFuture.failedFuture(unavailable());
                }

                @Override
                public Lease acquire(P partition, long permits, Duration maxWait) {
                    throw unavailable();
                }
            };
        }

        @Override public void close() {}
    }
}
