package dev.sluice.limiter.local;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.StoreStatistics;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.StepRunner.Outcome;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.StepOutcomes;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * State in segments, each a map in access order ({@link PackedStates}, which says where an entry's bytes go) under
 * its own lock; a step runs under its key's segment lock, so it is atomic per key, and keys of other segments are
 * decided in parallel. Expired entries are
 * swept incrementally: every {@value #SWEEP_EVERY} writes, or every quarter of the store's size in writes when
 * that is more, entries whose time to live has passed are removed. Reading an expired entry is harmless anyway:
 * the step treats it as absent.
 *
 * <p>The store holds at most its {@link Capacity}'s key units, counted over all segments, each state weighed by
 * its size ({@link Capacity#unitsOf}), overflow cells included. State that still limits is never dropped to make
 * room unless the policy is the explicit {@link Capacity.Policy#EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS}. An
 * acquisition or probe of a key without state is placed by {@link Overflow#place}, the rule every bounded store
 * shares, after dropping expired entries from its segment's least recently used end (and at most once per
 * {@value #REFUSAL_SWEEP_MILLIS} ms, the whole segment's) when exact states fill their share:
 * <ul>
 *   <li>on its overflow cell ({@link Capacity.Policy#SHARE_OVERFLOW_CELLS}, a key that can share): while the
 *       cell is live, whatever room there is, since the cell may hold the key's spending; or when exact states
 *       fill their share of the bound and the cells' share has room;
 *   <li>refused with {@link CapacityExceededException} when it can go nowhere ({@link Capacity.Policy#REFUSE_NEW_KEYS},
 *       a concurrency key, or the whole bound full);
 *   <li>under eviction the segment's least recently used state goes, passing over up to {@value #MAX_PROTECTED_SKIPS}
 *       live leases. A new key whose segment is empty while the store is full is stored all the same: the store
 *       then exceeds its bound by at most one key per segment, and later writes evict that excess back.
 * </ul>
 * The key's segment lock is held while its cell is read and written (cell locks are only ever taken inside a
 * segment lock), so requests of one key never split between the cell and an exact state. States already held
 * may grow (a log filling up) past the bound: a bound is checked when a key is admitted, and keys that hold state
 * are decided exactly, whatever else arrives.
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
    private static final int CELL_LOCKS = 256;
    private static final int CONCURRENCY = Algorithms.algorithmId(LimitSpec.concurrency(1, Duration.ofSeconds(1)));

    private final InstantSource clock;
    private final Capacity capacity;
    private final long maxKeys;
    private final int overflowCells;
    private final Segment[] segments;
    private final AtomicLong writes = new AtomicLong();
    /** The write count at the last sweep started by writes. */
    private final AtomicLong sweptAtWrite = new AtomicLong();
    /** The time of the last sweep; no decision runs earlier (see the class comment). */
    private final AtomicLong sweptAt = new AtomicLong(Long.MIN_VALUE);
    /** Key units held, and units taken for keys about to be stored: never above {@link #maxKeys} for long. */
    private final AtomicLong units = new AtomicLong();
    /** Keys held (each any number of units). */
    private final AtomicLong keys = new AtomicLong();
    /** Live and not yet swept overflow cells, by group and cell; each written under its {@link #cellLock}. */
    private final ConcurrentHashMap<Cell, long[]> cells = new ConcurrentHashMap<>();
    private final Object[] cellLocks = new Object[CELL_LOCKS];
    private final LongAdder evictions = new LongAdder();
    private final LongAdder refusals = new LongAdder();
    private final LongAdder overflowDecisions = new LongAdder();
    private final LongAdder overflowRefusals = new LongAdder();
    /** States stored, new or replaced (for tests: a step that keeps its state stores none). */
    private final LongAdder stateWrites = new LongAdder();

    /** One lock's keys, least recently used first. */
    private static final class Segment {
        final PackedStates states = new PackedStates();
        long nextRefusalSweep = Long.MIN_VALUE;
    }

    /** An overflow cell of one group ({@link Overflow#groupOf}). */
    private record Cell(String group, int index) {}

    LocalDecisionStore(InstantSource clock) {
        this(clock, Capacity.defaults());
    }

    LocalDecisionStore(InstantSource clock, Capacity capacity) {
        this.clock = clock;
        this.capacity = capacity;
        this.maxKeys = capacity.resolveMaxKeys();
        this.overflowCells = capacity.overflowCells(maxKeys);
        int n = segmentCount(maxKeys);
        this.segments = new Segment[n];
        for (int i = 0; i < n; i++) {
            segments[i] = new Segment();
        }
        for (int i = 0; i < CELL_LOCKS; i++) {
            cellLocks[i] = new Object();
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
            long now = now();
            long[] state = segment.states.get(key); // marks it the most recently used
            if (request.op() == Op.REFUND && Overflow.isCellToken(request.leaseId())) {
                // A cell grant keeps its permits (see Overflow); nothing here is the refund's to change.
                verdict = StepRunner.run(request.spec(), Op.REFUND, request.permits(), request.leaseId(), null, now)
                        .verdict();
            } else if (state == null && request.op().isPlaced()
                    && capacity.policy() != Capacity.Policy.EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS) {
                verdict = decideWithoutState(segment, request, now);
            } else {
                Outcome o = StepRunner.run(request.spec(), request.op(), request.permits(), request.leaseId(),
                        state, now);
                apply(segment, key, state, o, now);
                verdict = o.verdict();
            }
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
     * An acquisition or probe of a key without state, placed by {@link Overflow#place}: on its cell, on a new
     * exact state, or refused. Runs under the key's segment lock and, for a key that can share, its cell's
     * (cell locks are only ever taken inside a segment lock), so requests of one key never split between the
     * cell and an exact state.
     */
    private Verdict decideWithoutState(Segment segment, StepRequest request, long now) {
        boolean sharing = capacity.policy() == Capacity.Policy.SHARE_OVERFLOW_CELLS && Overflow.shares(request.spec());
        Cell cell = sharing ? cellOf(request) : null;
        synchronized (cell == null ? segment : cellLock(cell)) {
            long[] cellState = cell == null ? null : cells.get(cell);
            if (units.get() >= Capacity.exactUnits(capacity.policy(), maxKeys)) {
                dropExpired(segment, now);
            }
            Overflow.Placement placement = Overflow.place(capacity.policy(), request.spec(), request.op(), cellState,
                    now, units.get(), maxKeys);
            switch (placement) {
                case CELL -> {
                    return decideOnCell(cell, cellState, request, now);
                }
                case REFUSE -> {
                    refusals.increment();
                    throw new CapacityExceededException("the in-process store holds its bound of " + maxKeys
                            + " key units (" + capacity + "); a key without state is refused until room frees up");
                }
                default -> {
                    Outcome o = StepRunner.run(request.spec(), request.op(), request.permits(), request.leaseId(),
                            null, now);
                    if (o.action() == Outcome.Action.WRITE) {
                        units.addAndGet(Capacity.unitsOf(o.state().length));
                        segment.states.put(request.key(), o.state());
                        stateWrites.increment();
                        keys.incrementAndGet();
                    }
                    return o.verdict();
                }
            }
        }
    }

    private Verdict decideOnCell(Cell cell, long[] cellState, StepRequest request, long now) {
        Op op = Overflow.onCell(request.op());
        Outcome o = StepRunner.run(request.spec(), op, request.permits(), request.leaseId(), cellState, now);
        storeCell(cell, cellState, o);
        if (op != Op.ACQUIRE) {
            return Overflow.marked(o.verdict());
        }
        overflowDecisions.increment();
        if (!o.verdict().granted() && request.permits() > 0) {
            overflowRefusals.increment();
        }
        return Overflow.marked(o.verdict());
    }

    /** Writes or removes a cell as its step said; a cell's units count in the bound like a key's. */
    private void storeCell(Cell cell, long[] before, Outcome o) {
        switch (o.action()) {
            case WRITE -> {
                cells.put(cell, o.state());
                units.addAndGet(Capacity.unitsOf(o.state().length) - (before == null ? 0 : Capacity.unitsOf(before.length)));
            }
            case REMOVE -> {
                if (cells.remove(cell) != null) {
                    units.addAndGet(-Capacity.unitsOf(before.length));
                }
            }
            default -> { }
        }
    }

    private Cell cellOf(StepRequest request) {
        return new Cell(Overflow.groupOf(request.key(), request.spec()), Overflow.cellOf(request.key(), overflowCells));
    }

    private Object cellLock(Cell cell) {
        return cellLocks[(cell.index() * 31 + cell.group().hashCode()) & (CELL_LOCKS - 1)];
    }

    /** Stores, removes or keeps a key's entry as its step said; a new key takes its room first. */
    private void apply(Segment segment, String key, long[] state, Outcome o, long now) {
        switch (o.action()) {
            case WRITE -> {
                long needed = Capacity.unitsOf(o.state().length);
                if (state == null) {
                    makeRoom(segment, needed, now);
                    keys.incrementAndGet();
                } else {
                    units.addAndGet(needed - Capacity.unitsOf(state.length));
                }
                segment.states.put(key, o.state());
                stateWrites.increment();
            }
            case REMOVE -> {
                long[] removed = segment.states.remove(key);
                if (removed != null) {
                    forget(removed);
                }
            }
            default -> { }
        }
    }

    /** Drops expired state from the segment's least recently used end, and at times the whole segment's. */
    private void dropExpired(Segment segment, long now) {
        PackedStates.Cursor eldest = segment.states.eldestFirst();
        while (eldest.hasNext()) {
            long[] state = eldest.next();
            if (Algorithms.expiresAt(state) > now) {
                break;
            }
            eldest.remove();
            forget(state);
        }
        if (now >= segment.nextRefusalSweep) {
            segment.nextRefusalSweep = now + REFUSAL_SWEEP_MILLIS;
            removeExpired(segment, now);
        }
    }

    /**
     * Takes room for a new key: under eviction by evicting, else within the bound (a key placed exact by
     * {@link #decideWithoutState} has it; a write that creates state another way, a lease acquired, takes it here).
     */
    private void makeRoom(Segment segment, long needed, long now) {
        if (capacity.policy() != Capacity.Policy.EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS) {
            units.addAndGet(needed);
            return;
        }
        PackedStates states = segment.states;
        if (units.addAndGet(needed) <= maxKeys) {
            return;
        }
        // Evictions until this key's units fit, so concurrent writers together evict exactly their excess; more only
        // to win back what keys stored in empty segments took (see the class comment).
        for (int evicted = 0; !states.isEmpty() && units.get() > maxKeys
                && (evicted == 0 || units.get() > maxKeys + segments.length); evicted++) {
            forget(evictOne(states, now));
            evictions.increment();
        }
    }

    private void forget(long[] state) {
        units.addAndGet(-Capacity.unitsOf(state.length));
        keys.decrementAndGet();
    }

    /**
     * Removes the least recently used state, passing over a few live leases; returns it, in an array only to be read
     * before the next walk of the segment ({@link PackedStates.Cursor}).
     */
    private static long[] evictOne(PackedStates states, long now) {
        PackedStates.Cursor candidates = states.eldestFirst();
        long[] victim = candidates.next();
        for (int skipped = 0; isLiveLease(victim, now) && skipped < MAX_PROTECTED_SKIPS && candidates.hasNext();
                skipped++) {
            victim = candidates.next();
        }
        if (isLiveLease(victim, now)) {
            candidates = states.eldestFirst(); // every candidate holds leases: the bound wins
            victim = candidates.next();
        }
        candidates.remove();
        return victim;
    }

    private void removeExpired(Segment segment, long now) {
        PackedStates.Cursor all = segment.states.eldestFirst();
        while (all.hasNext()) {
            long[] state = all.next();
            if (Algorithms.expiresAt(state) <= now) {
                all.remove();
                forget(state);
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
        for (Map.Entry<Cell, long[]> e : cells.entrySet()) {
            if (Algorithms.expiresAt(e.getValue()) <= now) {
                synchronized (cellLock(e.getKey())) {
                    long[] current = cells.get(e.getKey());
                    if (current != null && Algorithms.expiresAt(current) <= now) {
                        cells.remove(e.getKey());
                        units.addAndGet(-Capacity.unitsOf(current.length));
                    }
                }
            }
        }
    }

    private long now() {
        return Math.max(clock.millis(), sweptAt.get());
    }

    /** A copy of the stored state of a key, or null, without marking it used (for tests). */
    long[] peek(String key) {
        Segment segment = segmentOf(key);
        synchronized (segment) {
            return segment.states.peek(key);
        }
    }

    /** States stored so far, new or replaced (for tests). */
    long stateWrites() {
        return stateWrites.sum();
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

    /** Overflow cells held now, live or not yet swept. */
    int cellsHeld() {
        return cells.size();
    }

    /** Key units held now. */
    long unitsHeld() {
        return units.get();
    }

    /** The bound in keys. */
    long maxKeys() {
        return maxKeys;
    }

    @Override
    public StoreStatistics statistics() {
        return new StoreStatistics(size(), maxKeys, evictions.sum(), refusals.sum(), overflowDecisions.sum(),
                overflowRefusals.sum(), cells.size());
    }

    /** One: no other replica shares an in-process store. */
    @Override
    public int members() {
        return 1;
    }

    /** Decides in the calling thread: each request as one step under its key's lock, in order. */
    @Override
    public CompletableFuture<StepOutcomes> run(List<StepRequest> requests) {
        return CompletableFuture.completedFuture(StepOutcomes.ofEach(requests, this::run));
    }

    @Override
    public String toString() {
        return "in-process store (" + size() + " keys, " + capacity + ")";
    }
}
