package dev.sluice.prefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimiterOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

final class MemoryBoundTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicLong storeCalls = new AtomicLong();

    /** A store that refuses every request for {@code retryAfterMillis}. */
    private Prefilter.Remote refusing(long retryAfterMillis) {
        return new Prefilter.Remote() {
            @Override
            public Lease tryAcquire(long permits) {
                storeCalls.incrementAndGet();
                Duration retryAfter = Duration.ofMillis(retryAfterMillis);
                return Lease.refused(0, 10, Optional.of(retryAfter), retryAfter);
            }

            @Override
            public CompletableFuture<Lease> acquireAsync(long permits) {
                return CompletableFuture.completedFuture(tryAcquire(permits));
            }

            @Override
            public Lease acquire(long permits, Duration maxWait) {
                return tryAcquire(permits);
            }
        };
    }

    private RefusalCache prefilter(long maximumSize) {
        PrefilterOptions options = PrefilterOptions.builder().maximumSize(maximumSize).ticker(nanos::get)
                .executor(Runnable::run).build();
        return new RefusalCache(LimiterOptions.defaults(), options, new PrefilterStats("flood", List.of(), List.of()));
    }

    @Test
    void millionDistinctKeys_keepTheCacheAtItsBound() {
        RefusalCache prefilter = prefilter(100_000);
        Prefilter.Remote store = refusing(60_000);
        for (int i = 0; i < 1_000_000; i++) {
            assertFalse(prefilter.tryAcquire("key-" + i, store, 1).isAcquired());
            if (i % 100_000 == 99_999) {
                prefilter.cache().cleanUp();
                long size = prefilter.cache().estimatedSize();
                assertTrue(size <= 100_000, "size " + size + " after " + (i + 1) + " keys");
            }
        }
        prefilter.cache().cleanUp();
        assertEquals(100_000, prefilter.cache().estimatedSize());
        assertEquals(1_000_000, storeCalls.get());
    }

    @Test
    void entries_expireWithTheirRetryAfter() {
        RefusalCache prefilter = prefilter(1000);
        Prefilter.Remote store = refusing(500);
        for (int i = 0; i < 100; i++) {
            prefilter.tryAcquire("key-" + i, store, 1);
        }
        prefilter.cache().cleanUp();
        assertEquals(100, prefilter.cache().estimatedSize());
        nanos.addAndGet(Duration.ofMillis(500).toNanos());
        prefilter.cache().cleanUp();
        assertEquals(0, prefilter.cache().estimatedSize());
    }

    /** A later, longer refusal of the same key must extend the cache entry's life, not only its fields. */
    @Test
    void longerRefusalOfSameKey_extendsTheEntrysLife() {
        RefusalCache prefilter = prefilter(1000);
        assertFalse(prefilter.tryAcquire("k", refusing(100), 2).isAcquired());
        assertFalse(prefilter.tryAcquire("k", refusing(500), 1).isAcquired()); // smaller: asks, refused longer
        long calls = storeCalls.get();
        nanos.addAndGet(Duration.ofMillis(200).toNanos());
        prefilter.cache().cleanUp();
        PrefilterLease lease = prefilter.tryAcquire("k", refusing(500), 1);
        assertTrue(lease.isLocal());
        assertEquals(calls, storeCalls.get());
    }
}
