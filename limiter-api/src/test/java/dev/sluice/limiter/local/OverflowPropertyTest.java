package dev.sluice.limiter.local;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * For random specs, random histories of many keys of several limiters at once (partitioned policies and plain
 * limiters under one prefix, composites among them) on a tiny store (so keys collide on very few cells and move
 * between overflow and exact state all the time), random refunds and random steps of time: a decision of the
 * bounded store never grants where the key's own exact history, kept beside it on no bound at all, would refuse,
 * and another limiter's traffic never loosens one.
 */
final class OverflowPropertyTest {
    private static final List<LimitSpec> SPECS = List.of(
            LimitSpec.fixedWindow(5, Duration.ofMillis(700)),
            LimitSpec.slidingWindow(6, Duration.ofMillis(900), 3),
            LimitSpec.slidingLog(4, Duration.ofMillis(650)),
            LimitSpec.slidingCounter(5, Duration.ofMillis(800)),
            LimitSpec.tokenBucket(5, 2, Duration.ofMillis(300)),
            LimitSpec.gcra(4, Duration.ofMillis(500), 2),
            LimitSpec.allOf(LimitSpec.fixedWindow(6, Duration.ofMillis(400)), LimitSpec.slidingLog(3, Duration.ofMillis(300))));

    private record Grant(String key, LimitSpec spec, long permits, long token, long referenceToken) {}

    @Test
    void aBoundedStoreNeverGrantsWhereTheKeysOwnHistoryRefuses() {
        for (int seed = 0; seed < 300; seed++) {
            run(seed);
        }
    }

    private static void run(int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        // Two to four limiters, each with its own spec: partitioned policies, and plain limiters (whose keys have two
        // segments) under the same prefix.
        int limiters = 2 + random.nextInt(3);
        List<String> names = new ArrayList<>();
        Map<String, LimitSpec> specs = new HashMap<>();
        for (int j = 0; j < limiters; j++) {
            String name = random.nextBoolean() ? "sluice/p" + j + "/" : "sluice/plain" + j;
            names.add(name);
            specs.put(name, SPECS.get(random.nextInt(SPECS.size())));
        }
        ManualClock clock = new ManualClock();
        int bound = 64 + random.nextInt(64);
        int cells = 1 + random.nextInt(3);
        LocalDecisionStore store = new LocalDecisionStore(clock, Capacity.maxKeys(bound).withOverflowCells(cells));
        // Keys of another policy fill the store now and then, so others move between cells and exact state.
        LimitSpec filler = LimitSpec.fixedWindow(1, Duration.ofMillis(200 + random.nextInt(800)));
        Map<String, long[]> reference = new HashMap<>();
        List<Grant> grants = new ArrayList<>();
        int keys = 4 + random.nextInt(12);
        for (int step = 0; step < 400; step++) {
            int action = random.nextInt(10);
            if (action == 0) {
                clock.advance(Duration.ofMillis(random.nextInt(250)));
            } else if (action == 1) {
                int n = random.nextInt(2 * bound);
                for (int i = 0; i < n; i++) {
                    store.run(new StepRequest("sluice/filler/" + seed + "-" + step + "-" + i, filler, Op.ACQUIRE, 1, 0,
                            Durability.REPLICATED));
                }
            } else if (action == 2 && !grants.isEmpty()) {
                Grant g = grants.remove(random.nextInt(grants.size()));
                store.run(new StepRequest(g.key(), g.spec(), Op.REFUND, g.permits(), g.token(), Durability.REPLICATED));
                Verdict ref = Algorithms.step(g.spec(), reference.get(g.key()), clock.millis(), Op.REFUND, g.permits(),
                        g.referenceToken());
                keep(reference, g.key(), ref);
            } else {
                String name = names.get(random.nextInt(limiters));
                LimitSpec spec = specs.get(name);
                String key = name.endsWith("/") ? name + "k" + random.nextInt(keys) : name;
                long permits = 1 + random.nextInt((int) Math.min(3, spec.limit()));
                Verdict actual = store.run(new StepRequest(key, spec, Op.ACQUIRE, permits, 0, Durability.REPLICATED));
                Verdict own = Algorithms.acquire(spec, reference.get(key), clock.millis(), permits);
                if (actual.granted()) {
                    if (!own.granted() && !withinRefillPhase(spec, reference.get(key), clock.millis(), permits)) {
                        fail("seed " + seed + ", step " + step + ": " + spec + " granted " + permits + " to " + key
                                + " where its own history refuses (" + own + ")");
                    }
                    keep(reference, key, own);
                    grants.add(new Grant(key, spec, permits, actual.token(), own.token()));
                }
            }
        }
        assertTrue(store.unitsHeld() <= bound + 1, "seed " + seed + ": " + store.unitsHeld()
                + " units, cells included, bound " + bound);
    }

    /**
     * A token bucket's refills come a whole period after its first request, so a cell that other keys started
     * earlier refills at other instants than the key's own bucket would: a key on a cell may see a refill up to
     * one period early (never more tokens than the bucket holds, never a higher rate). Every other algorithm's
     * windows are aligned to the epoch or continuous, so the rule holds exactly for them.
     */
    private static boolean withinRefillPhase(LimitSpec spec, long[] own, long now, long permits) {
        return spec instanceof LimitSpec.TokenBucket bucket
                && Algorithms.acquire(spec, own, now + bucket.replenishmentPeriodMillis(), permits).granted();
    }

    /** The key's own history takes what the bounded store granted or refunded, and nothing else. */
    private static void keep(Map<String, long[]> reference, String key, Verdict v) {
        if (v.stateChanged(reference.get(key))) {
            if (v.state() == null || v.ttlMillis() <= 0) {
                reference.remove(key);
            } else {
                reference.put(key, v.state());
            }
        }
    }
}
