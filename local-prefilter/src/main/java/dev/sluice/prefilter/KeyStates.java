package dev.sluice.prefilter;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.function.Consumer;

/**
 * The per-key memory of one pre-filter, shared by its refusals and its pools.
 *
 * <p>Memory: one Caffeine entry per key with a refusal, a pool or (allowance) adaptive state, bounded
 * by {@code maximumSize}; an entry expires when its refusal and its pool have (allowance state is kept
 * for four refill intervals of idleness). Permits still pooled in an entry that is evicted, or that another
 * entry of its key replaced, can never be granted: they are reported as discarded.
 */
final class KeyStates {
    private final PrefilterStats stats;
    private final Cache<String, KeyState> cache;

    KeyStates(PrefilterOptions options, PrefilterStats stats) {
        this.stats = stats;
        this.cache = Caffeine.newBuilder()
                .maximumSize(options.maximumSize())
                .ticker(options.ticker()::read) // Caffeine times expiry on the same ticker
                .executor(options.executor())
                .expireAfter(new KeepUntil())
                .evictionListener(this::evicted)
                .build();
    }

    /** Entries live until their {@link KeyState#keepUntil}, re-read whenever the entry is read or written. */
    private static final class KeepUntil implements Expiry<String, KeyState> {
        @Override
        public long expireAfterCreate(String key, KeyState value, long currentTime) {
            return Math.max(0, value.keepUntil - currentTime);
        }

        @Override
        public long expireAfterUpdate(String key, KeyState value, long currentTime, long currentDuration) {
            return Math.max(0, value.keepUntil - currentTime);
        }

        @Override
        public long expireAfterRead(String key, KeyState value, long currentTime, long currentDuration) {
            return Math.max(0, value.keepUntil - currentTime);
        }
    }

    private void evicted(String key, KeyState state, RemovalCause cause) {
        if (state != null) {
            stats.discarded(state.takePool());
        }
    }

    /** The state of {@code key}, or null. */
    KeyState find(String key) {
        return cache.getIfPresent(key);
    }

    /** The state of {@code key}, created to live until {@code keepUntil} if there is none. */
    KeyState findOrCreate(String key, long keepUntil) {
        return cache.get(key, k -> new KeyState(keepUntil));
    }

    /** Applies {@code change} under the monitor of the state of {@code key}, created as by {@link #findOrCreate}. */
    void update(String key, long keepUntil, Consumer<KeyState> change) {
        cache.asMap().compute(key, (k, v) -> {
            KeyState s = v != null ? v : new KeyState(keepUntil);
            synchronized (s) {
                change.accept(s);
            }
            return s;
        });
    }

    /** Makes the cache hold {@code state} under {@code key} with its current lifetime. */
    void keep(String key, KeyState state) {
        KeyState held = cache.asMap().compute(key, (k, v) -> v == null ? state : v);
        if (held != state) {
            stats.discarded(state.takePool()); // another entry took this key's place: our pool cannot be found
        }
    }

    /** The cache itself (for tests). */
    Cache<String, KeyState> cache() {
        return cache;
    }

    /** Drops the state of {@code key}; a pool it held counts as discarded. */
    void forget(String key) {
        cache.invalidate(key);
    }

    void clear() {
        cache.invalidateAll();
    }
}
