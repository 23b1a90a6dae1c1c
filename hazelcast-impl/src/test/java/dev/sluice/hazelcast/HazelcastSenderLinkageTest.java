package dev.sluice.hazelcast;

import dev.sluice.limiter.store.FutureFailures;
import dev.sluice.limiter.Coalescing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.StepRequest;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The sender's lane when an invocation cannot even start because a Hazelcast class or method is missing (a
 * {@link LinkageError}, as the client's {@code ClientInvocation} constructor on Hazelcast 5.3 was): the hop
 * fails its callers and frees its lane, so the next decision on the key is sent, not queued for ever.
 * Only the Hazelcast instance is a stand-in here (a map whose {@code submitToKey} throws the error).
 */
final class HazelcastSenderLinkageTest {
    /**
     * Regression: on Hazelcast 5.3.8 every client decision timed out ("no verdict within PT1S") with nothing
     * logged, because the error escaped the sender and left the key's hop in flight.
     */
    @Test
    void submit_invocationFailsToLink_failsTheDecisionAndFreesTheLane() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        IMap<?, ?> map = (IMap<?, ?>) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {IMap.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "submitToKey" -> {
                        calls.incrementAndGet();
                        throw new NoClassDefFoundError("com/hazelcast/client/impl/clientside/HazelcastClientInstance");
                    }
                    case "getName" -> "sluice";
                    case "toString" -> "a map without a linkable invocation";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        HazelcastInstance instance = (HazelcastInstance) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HazelcastInstance.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getMap" -> map;
                    case "getName" -> "stand-in";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        CoalescedStore sender = new CoalescedStore(new HazelcastDecisionStore(instance, "sluice", null,
                HazelcastInternals.publicOnly(instance)), Coalescing.on());
        try {
            StepRequest request = new StepRequest("k", LimitSpec.fixedWindow(5, Duration.ofHours(1)), Op.ACQUIRE, 1, 0,
                    Durability.REPLICATED);
            for (int i = 0; i < 3; i++) {
                CompletableFuture<Verdict> f = sender.coalescer.submit(request, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
                ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                IllegalStateException failure = assertInstanceOf(IllegalStateException.class, FutureFailures.unwrap(e),
                        e.toString());
                assertTrue(failure.getMessage().startsWith("Sluice cannot start an invocation on Hazelcast ")
                        && failure.getCause() instanceof NoClassDefFoundError, failure.toString());
            }
            assertEquals(3, calls.get(), "each decision was sent, none queued behind a hop that never ended");
            assertEquals(0, sender.coalescer.queued());
        } finally {
            sender.close();
        }
    }
}
