package dev.sluice.it;

import dev.sluice.it.contract.Backend;
import dev.sluice.it.contract.ContractSuite;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract suite on the in-process backend. */
final class InProcessContractTest extends ContractSuite {
    private static Backend backend;

    @BeforeAll
    static void start() {
        ManualClock clock = new ManualClock();
        RateLimiters limiters = LocalRateLimiters.create(clock);
        backend = new Backend() {
            @Override public String name() { return "in-process"; }
            @Override public ManualClock clock() { return clock; }
            @Override public List<RateLimiters> replicas() { return List.of(limiters); }
            @Override public void close() { limiters.close(); }
        };
    }

    @AfterAll
    static void stop() throws Exception {
        backend.close();
    }

    @Override
    protected Backend backend() {
        return backend;
    }
}
