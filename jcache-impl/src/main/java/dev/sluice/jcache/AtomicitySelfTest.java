package dev.sluice.jcache;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.cache.Cache;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * Checks that a provider's {@code Cache.invoke} is atomic per key: {@value #THREADS} threads each invoke an
 * increment {@value #INVOKES} times on one scratch key, which must end at exactly the product; the key is
 * then removed. Costs a few hundred milliseconds on a remote provider, a few on an in-process one.
 */
final class AtomicitySelfTest {
    static final int THREADS = 4;
    static final int INVOKES = 250;
    private static final long TIMEOUT_SECONDS = 30;

    private AtomicitySelfTest() {}

    /**
     * Runs the check.
     *
     * @throws IllegalStateException if increments were lost (or the check could not finish in time)
     */
    static void run(Cache<String, long[]> cache, String keyPrefix) {
        String key = keyPrefix + "/.sluice-self-test/" + UUID.randomUUID();
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < INVOKES; i++) {
                        cache.invoke(key, new Increment());
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "sluice-jcache-self-test-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        start.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        try {
            for (Thread thread : threads) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (thread.isAlive()) {
                    throw new IllegalStateException("JCache self-test on cache '" + cache.getName() + "' did not finish "
                            + "within " + TIMEOUT_SECONDS + " s; is the provider reachable?");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the JCache self-test", e);
        }
        try {
            if (failure.get() != null) {
                throw new IllegalStateException("JCache self-test on cache '" + cache.getName() + "' failed: "
                        + failure.get(), failure.get());
            }
            long[] value = cache.get(key);
            long expected = (long) THREADS * INVOKES;
            long actual = value == null ? 0 : value[0];
            if (actual != expected) {
                throw new IllegalStateException("JCache provider " + providerOf(cache) + " is not atomic per key: "
                        + THREADS + " threads x " + INVOKES + " Cache.invoke increments of one key on cache '"
                        + cache.getName() + "' counted " + actual + " instead of " + expected
                        + ". Sluice needs an atomic invoke to be exact; use another provider (or turn the self-test "
                        + "off only if you know this result is wrong)");
            }
        } finally {
            cache.remove(key);
        }
    }

    private static String providerOf(Cache<?, ?> cache) {
        try {
            return cache.getCacheManager().getCachingProvider().getClass().getName();
        } catch (RuntimeException e) {
            return cache.getClass().getName();
        }
    }

    /** Adds one to a one-word counter. */
    static final class Increment implements EntryProcessor<String, long[], Void>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Void process(MutableEntry<String, long[]> entry, Object... arguments) {
            long[] value = entry.exists() ? entry.getValue() : null;
            entry.setValue(new long[] {value == null ? 1 : value[0] + 1});
            return null;
        }
    }
}
