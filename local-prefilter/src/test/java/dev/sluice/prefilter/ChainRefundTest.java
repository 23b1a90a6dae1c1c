package dev.sluice.prefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A pre-filtered link of a chain: the store's grants are refunded through it, a local allowance is not. */
final class ChainRefundTest {
    private final ManualClock clock = new ManualClock();
    private final CountingStore store = new CountingStore(clock);
    private final RateLimiters runtime = RateLimiterRuntime.create(store);

    @AfterEach
    void close() {
        runtime.close();
    }

    private RateLimiter spentLink() {
        RateLimiter spent = runtime.limiter("spent", LimitSpec.fixedWindow(1, Duration.ofHours(1)));
        assertTrue(spent.tryAcquire(1).isAcquired());
        return spent;
    }

    @Test
    void refusalCacheMode_storeGrantsAreRefunded() {
        RateLimiter first = LocalPrefilter.wrap(runtime.limiter("first", LimitSpec.slidingLog(5, Duration.ofHours(1))),
                PrefilterOptions.builder().mode(PrefilterMode.REFUSAL_CACHE).ticker(Workloads.ticker(clock)).build());
        RateLimiter chain = RateLimiters.chain(first, spentLink());
        for (int i = 0; i < 10; i++) {
            assertFalse(chain.tryAcquire(1).isAcquired());
        }
        assertEquals(5, first.tryAcquire(0).remaining(), "every grant of the first link given back");
    }

    @Test
    void allowanceMode_localGrantsStayTaken() {
        RateLimiter first = LocalPrefilter.wrap(runtime.limiter("first", LimitSpec.fixedWindow(1_000, Duration.ofHours(1))),
                PrefilterOptions.builder().mode(PrefilterMode.ALLOWANCE).ticker(Workloads.ticker(clock)).build());
        RateLimiter chain = RateLimiters.chain(first, spentLink());
        for (int i = 0; i < 10; i++) {
            assertFalse(chain.tryAcquire(1).isAcquired());
        }
        RateLimiter direct = runtime.limiter("first", LimitSpec.fixedWindow(1_000, Duration.ofHours(1)));
        assertTrue(direct.tryAcquire(0).remaining() < 1_000, "the allowance's permits stay consumed in the store");
        assertTrue(direct.tryAcquire(0).remaining() >= 1_000 - 10 - 100, "no more than the refused and one batch");
    }
}
