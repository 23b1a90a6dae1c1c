package dev.sluice.limiter.local;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.StoreStatistics;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Outcome;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.spi.DecisionStore;
import dev.sluice.limiter.spi.StepRequest;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * State in segments, each a map in access order under its own lock; a step runs under its key's segment
 * lock, so it is atomic per key, and keys of other segments are decided in parallel. Expired entries are
 * swept incrementally: every {@value #SWEEP_EVERY} writes, or every quarter of the store's size in writes when
 * that is more, entries whose time to live has passed are removed. Reading an expired entry is harmless anyway:
 * the step treats it as absent.
 *
 * <p>The store holds at most its {@link Capacity}'s keys, counted over all segments (fewer segments for small
 * bounds, at least {@value #MIN_KEYS_PER_SEGMENT} keys' room each). A step that would store state for a new
 * key in a full store first drops expired entries from its segment's least recently used end; if the store
 * is still full, it evicts its segment's least recently used state
 * ({@link Capacity.Policy#EVICT_LEAST_RECENTLY_USED}) or fails with {@link CapacityExceededException}
 * ({@link Capacity.Policy#REFUSE_NEW_KEYS}, after at most one full sweep of the segment per
 * {@value #REFUSAL_SWEEP_MILLIS} ms). Keys in use are at the most recently used end, so a flood of new keys
 * evicts the flood's own earlier keys, never a key that is asked for all along. Eviction passes over up to
 * {@value #MAX_PROTECTED_SKIPS} concurrency states with live leases (whose fencing tokens would start over),
 * then takes the least recently used state whatever it holds. A new key whose segment is empty while the
 * store is full is stored all the same (there is nothing of its own segment to evict): the store exceeds its
 * bound by at most one key per segment, and later writes evict that excess back.
 *
 * <p>A sweep at time {@code S} decides for every key it removes that its state is stale, as a step at
 * {@code S} would have. If the clock then stepped back, a removed key would read as absent at a time
 * when its state still mattered (a closed window reopened, a fencing token lower than one already
 * issued), where a kept state would have carried its own latest time. So the store never decides at a
 * time earlier than its last sweep: time never runs backwards for a swept key either.
 */
final class LocalDecisionStore implements DecisionStore {
    static final int SWEEP_EVERY = 4096;
    static final int MAX_SEGMENTS = 64;
    static final int MIN_KEYS_PER_SEGMENT = 64;
    static final int MAX_PROTECTED_SKIPS = 8;
    static final long REFUSAL_SWEEP_MILLIS = 100;
    private static final int CONCURRENCY = Algorithms.algorithmId(LimitSpec.concurrency(1, Duration.ofSeconds(1)));

    private final InstantSource clock;
    private final Capacity capacity;
    private final long maxKeys;
    private final Segment[] segments;
    private final AtomicLong writes = new AtomicLong();
    /** The write count at the last sweep started by writes. */
    private final AtomicLong sweptAtWrite = new AtomicLong();
    /** The time of the last sweep; no decision runs earlier (see the class comment). */
    private final AtomicLong sweptAt = new AtomicLong(Long.MIN_VALUE);
    /** Keys held, and places taken for keys about to be stored: never above {@link #maxKeys} for long. */
    private final AtomicLong keys = new AtomicLong();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder refusals = new LongAdder();

    /** One lock's keys, least recently used first. */
    private static final class Segment {
        final LinkedHashMap<String, long[]> states = new LinkedHashMap<>(16, 0.75f, true);
        long nextRefusalSweep = Long.MIN_VALUE;
    }

    LocalDecisionStore(InstantSource clock) {
        this(clock, Capacity.defaults());
    }

    LocalDecisionStore(InstantSource clock, Capacity capacity) {
        this.clock = clock;
        this.capacity = capacity;
        this.maxKeys = capacity.resolveMaxKeys();
        int n = segmentCount(maxKeys);
        this.segments = new Segment[n];
        for (int i = 0; i < n; i++) {
            segments[i] = new Segment();
        }
    }

    /** A power of two, at most {@value #MAX_SEGMENTS}, with room for {@value #MIN_KEYS_PER_SEGMENT} keys each. */
    static int segmentCount(long maxKeys) {
        int n = 1;
        while (n < MAX_SEGMENTS && maxKeys / (n * 2L) >= MIN_KEYS_PER_SEGMENT) {
            n *= 2;
        }
        return n;
    }

    private Segment segmentOf(String key) {
        int h = key.hashCode();
        return segments[(h ^ (h >>> 16)) & (segments.length - 1)];
    }

    Verdict run(StepRequest request) {
        String key = request.key();
        Segment segment = segmentOf(key);
        Verdict verdict;
        synchronized (segment) {
            long[] state = segment.states.get(key); // marks it the most recently used
            long now = now();
            Outcome o = StepRunner.run(request.spec(), request.op(), request.permits(), request.leaseId(), state, now);
            switch (o.action()) {
                case WRITE -> {
                    if (state == null) {
                        makeRoom(segment, now);
                    }
                    segment.states.put(key, o.state());
                }
                case REMOVE -> {
                    if (segment.states.remove(key) != null) {
                        keys.decrementAndGet();
                    }
                }
                default -> { }
            }
            verdict = o.verdict();
        }
        long written = writes.incrementAndGet();
        long last = sweptAtWrite.get();
        // A sweep reads every entry, so a large store sweeps less often: about four entries read per write.
        if (written - last >= Math.max(SWEEP_EVERY, keys.get() / 4) && sweptAtWrite.compareAndSet(last, written)) {
            sweep();
        }
        return verdict;
    }

    /**
     * Takes a place for a new key in the store, freeing one in its segment when the store is full, or refuses it;
     * see the class comment.
     */
    private void makeRoom(Segment segment, long now) {
        Map<String, long[]> states = segment.states;
        if (keys.incrementAndGet() <= maxKeys) {
            return;
        }
        Iterator<long[]> eldest = states.values().iterator();
        while (keys.get() > maxKeys && eldest.hasNext() && Algorithms.expiresAt(eldest.next()) <= now) {
            eldest.remove();
            keys.decrementAndGet();
        }
        if (capacity.policy() == Capacity.Policy.REFUSE_NEW_KEYS) {
            if (keys.get() > maxKeys && now >= segment.nextRefusalSweep) {
                segment.nextRefusalSweep = now + REFUSAL_SWEEP_MILLIS;
                removeExpired(segment, now);
            }
            if (keys.get() > maxKeys) {
                keys.decrementAndGet();
                refusals.increment();
                throw new CapacityExceededException("the in-process store holds " + maxKeys
                        + " keys, its bound (" + capacity + "); a key without state is refused until room frees up");
            }
            return;
        }
        // One eviction per place taken beyond the bound, so concurrent writers together evict exactly their
        // excess; more only to win back what keys stored in empty segments took (see the class comment).
        for (int evicted = 0; !states.isEmpty() && keys.get() > maxKeys
                && (evicted == 0 || keys.get() > maxKeys + segments.length); evicted++) {
            evictOne(states, now);
            keys.decrementAndGet();
            evictions.increment();
        }
    }

    /** Removes the least recently used state, passing over a few live leases. */
    private static void evictOne(Map<String, long[]> states, long now) {
        Iterator<long[]> candidates = states.values().iterator();
        long[] victim = candidates.next();
        for (int skipped = 0; isLiveLease(victim, now) && skipped < MAX_PROTECTED_SKIPS && candidates.hasNext();
                skipped++) {
            victim = candidates.next();
        }
        if (isLiveLease(victim, now)) {
            candidates = states.values().iterator(); // every candidate holds leases: the bound wins
            candidates.next();
        }
        candidates.remove();
    }

    private void removeExpired(Segment segment, long now) {
        Iterator<long[]> all = segment.states.values().iterator();
        while (all.hasNext()) {
            if (Algorithms.expiresAt(all.next()) <= now) {
                all.remove();
                keys.decrementAndGet();
            }
        }
    }

    private static boolean isLiveLease(long[] state, long now) {
        return Algorithms.algorithmIdOf(state) == CONCURRENCY && Algorithms.expiresAt(state) > now;
    }

    /** Removes every entry whose state no longer matters. */
    void sweep() {
        // Raised before removing, so no step can run earlier than what it might find removed; never lowered.
        long now = sweptAt.accumulateAndGet(clock.millis(), Math::max);
        for (Segment segment : segments) {
            synchronized (segment) {
                removeExpired(segment, now);
            }
        }
    }

    private long now() {
        return Math.max(clock.millis(), sweptAt.get());
    }

    /** The stored state of a key, or null, without marking it used (for tests). */
    long[] peek(String key) {
        Segment segment = segmentOf(key);
        synchronized (segment) {
            for (Map.Entry<String, long[]> e : segment.states.entrySet()) {
                if (e.getKey().equals(key)) {
                    return e.getValue();
                }
            }
            return null;
        }
    }

    /** Entries in the segments now, each segment read under its lock (for tests: slower than {@link #size}). */
    int held() {
        int n = 0;
        for (Segment segment : segments) {
            synchronized (segment) {
                n += segment.states.size();
            }
        }
        return n;
    }

    /** Entries currently held, expired or not, and places being taken by writes in flight. */
    int size() {
        return (int) Math.max(0, keys.get());
    }

    /** The bound in keys. */
    long maxKeys() {
        return maxKeys;
    }

    @Override
    public StoreStatistics statistics() {
        return new StoreStatistics(size(), maxKeys, evictions.sum(), refusals.sum());
    }

    @Override
    public CompletableFuture<Verdict> submit(StepRequest request) {
        try {
            return CompletableFuture.completedFuture(run(request));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public Verdict execute(StepRequest request, long timeoutNanos) {
        return run(request);
    }

    @Override
    public String toString() {
        return "in-process store (" + size() + " keys, " + capacity + ")";
    }
}
