package dev.sluice.hazelcast;

import dev.sluice.limiter.Coalescing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IndeterminateOperationStateException;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.RateLimiterRuntime;
import dev.sluice.limiter.store.Outcomes;
import dev.sluice.limiter.store.StepRequest;
import dev.sluice.limiter.RuntimeSettings;
import java.util.List;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A concurrency acquisition that ran on the owner but whose answer was lost, retried by the runtime: on a
 * real member (on a free port) and through a client, coalescing on and off. The answer is lost by a store that
 * lets the step run and then reports Hazelcast's {@link IndeterminateOperationStateException}.
 */
final class HazelcastRetryTest {
    private static HazelcastInstance member;
    private static HazelcastInstance client;

    @BeforeAll
    static void start() {
        int[] port = FreePorts.take(1);
        member = Hazelcast.newHazelcastInstance(HazelcastCoalescingTest.memberConfig("sluice-retry", port, 0));
        client = HazelcastClient.newHazelcastClient(HazelcastCoalescingTest.clientConfig("sluice-retry",
                FreePorts.addresses(port).get(0)));
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (member != null) {
            member.getLifecycleService().terminate();
        }
    }

    /** Runs every step on the real store, and loses the answer of the first {@code toLose}. */
    private static final class LosingAnswers implements DecisionStore {
        final HazelcastDecisionStore real;
        final AtomicInteger toLose;

        LosingAnswers(HazelcastDecisionStore real, int toLose) {
            this.real = real;
            this.toLose = new AtomicInteger(toLose);
        }

        @Override
        public CompletableFuture<? extends Outcomes> run(List<StepRequest> requests) {
            return real.run(requests).thenCompose(outcomes -> toLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0
                    ? CompletableFuture.failedFuture(new IndeterminateOperationStateException("lost (test)"))
                    : CompletableFuture.completedFuture(outcomes));
        }

        @Override
        public Throwable translate(Throwable failure) {
            return real.translate(failure);
        }

        @Override
        public boolean isRetryable(Throwable failure) {
            return real.isRetryable(failure);
        }

        @Override
        public Executor callbackExecutor() {
            return real.callbackExecutor();
        }

        @Override
        public void close() {
            real.close();
        }
    }

    /**
     * Regression: the retry took a second lease (or, at the limit, was refused) while the first run's
     * lease, which nobody knew of, held its permit for its whole duration.
     */
    @ParameterizedTest
    @ValueSource(strings = {"member", "member-coalescing", "client", "client-coalescing"})
    void acquire_concurrencyAnswerLostThenRetried_getsTheLeaseItWasGranted(String setup) throws Exception {
        HazelcastInstance hz = setup.startsWith("member") ? member : client;
        Coalescing coalescing = setup.endsWith("coalescing") ? Coalescing.on()
                : Coalescing.disabled();
        LosingAnswers store = new LosingAnswers(
                new HazelcastDecisionStore(hz, SluiceHazelcast.DEFAULT_MAP_NAME, null), 1);
        try (RateLimiters limiters = RateLimiterRuntime.create(store, "sluice", RuntimeSettings.defaults(), coalescing)) {
            RateLimiter limiter = limiters.limiter("retry-" + UUID.randomUUID(),
                    LimitSpec.concurrency(2, Duration.ofMinutes(1)),
                    LimiterOptions.builder().maxRetries(2).decisionTimeout(Duration.ofSeconds(10)).build());
            try (Lease lease = limiter.acquireAsync(1).get(10, TimeUnit.SECONDS)) {
                assertTrue(lease.isAcquired());
                assertEquals(0, store.toLose.get(), "the first answer was lost and the step retried");
                assertEquals(1, lease.remaining());
                assertEquals(1, limiter.tryAcquire(0).remaining(), "one lease is held: the retry orphaned none");
            }
        }
    }
}
