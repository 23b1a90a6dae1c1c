package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.it.hazelcast.TestCluster;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link FailureMode#LOCAL} on real Hazelcast while the cluster cannot answer: every replica decides on its share,
 * the total admitted across replicas stays within the limit, every such lease is degraded, and decisions are the
 * store's again once it answers.
 *
 * <p>The spec is a sliding log, exact, whose window (not a whole number of seconds) is longer than the outage part of
 * a test, so the count over it is the count within one window: the shares add up exactly, whatever the machine's
 * speed. Nothing here is timed; waits are for conditions.
 */
@ExtendWith(Reaper.class)
final class FaultLocalFallbackTest {
    private static final long LIMIT = 10;
    private static final LimitSpec SPEC = LimitSpec.slidingLog(LIMIT, Duration.ofMillis(45_500));
    private static final Duration DECISION_TIMEOUT = Duration.ofMillis(700);
    private static final Duration GENEROUS = Duration.ofSeconds(60);
    private static final String THREE_MEMBERS = "three-members";

    private static LimiterOptions.Builder local() {
        return LimiterOptions.builder().failureMode(FailureMode.LOCAL).decisionTimeout(DECISION_TIMEOUT)
                .maxRetries(1);
    }

    /** Asks each replica {@code asks} times; every lease must be local. Returns the grants per replica. */
    private static List<Integer> askEach(List<RateLimiter> replicas, int asks, long share) {
        List<Integer> granted = new ArrayList<>();
        for (RateLimiter replica : replicas) {
            int n = 0;
            for (int i = 0; i < asks; i++) {
                Lease lease = replica.tryAcquire(1);
                assertTrue(lease.isDegraded() && lease.isLocalFallback(), "not decided locally: " + lease);
                assertEquals(share, lease.limit(), "the share of " + LIMIT + ": " + lease);
                n += lease.isAcquired() ? 1 : 0;
            }
            granted.add(n);
        }
        return granted;
    }

    private static void awaitStore(RateLimiter replica) {
        FaultCluster.await(() -> {
            try {
                return !replica.tryAcquire(0).isDegraded(); // a probe takes nothing
            } catch (DecisionUnavailableException notYet) {
                return false;
            }
        }, GENEROUS, () -> "the store did not answer " + replica + " again");
    }

    /**
     * Three application replicas, each a Hazelcast client of a one-member cluster (a JVM of its own), with
     * {@code fallbackReplicas(3)}: the member is killed with SIGKILL; each replica asks 6 times: 3 granted each
     * (10 over 3, rounded down), 9 in all, never more than 10, every lease degraded and local. A member comes back
     * (empty: the budgets died with the cluster); each client reconnects, and its decisions are the store's again:
     * not degraded, the whole limit.
     */
    @Test
    void clients_clusterGone_sharesAddUpWithinTheLimit_thenTheStoreDecidesAgain() throws Exception {
        try (FaultCluster cluster = FaultCluster.start("faults-local-fallback", 1)) {
            List<RateLimiters> factories = new ArrayList<>();
            List<RateLimiter> replicas = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                HazelcastInstance client = cluster.client(DECISION_TIMEOUT);
                FaultCluster.awaitMembers(client, 1, GENEROUS);
                RateLimiters limiters = HazelcastRateLimiters.create(client);
                factories.add(limiters);
                replicas.add(limiters.limiter("fallback", SPEC, local().fallbackReplicas(3).build()));
            }
            for (RateLimiter replica : replicas) {
                awaitStore(replica); // a first call through a new client may outlast its timeout on a busy machine
            }

            cluster.kill(0);
            List<Integer> granted = askEach(replicas, 6, LIMIT / 3);
            assertEquals(List.of(3, 3, 3), granted, "each replica admits its share exactly");
            int total = granted.stream().mapToInt(Integer::intValue).sum();
            assertTrue(total <= LIMIT, "admitted " + total + " across replicas during the outage, limit " + LIMIT);

            cluster.restart(0);
            for (RateLimiter replica : replicas) {
                awaitStore(replica);
                Lease lease = replica.tryAcquire(1);
                assertTrue(lease.isAcquired() && !lease.isDegraded() && !lease.isLocalFallback(), lease.toString());
                assertEquals(LIMIT, lease.limit(), "the store's limit, not a share");
            }
            factories.forEach(RateLimiters::close);
        }
    }

    /**
     * Three embedded members (the application replicas) whose Sluice maps need all three members (split-brain
     * protection): no replicas configured. Each decides once on the store, which remembers the membership: 3.
     * One member leaves; the two left cannot write (too few members), so they decide locally, on 10 over 3 (the
     * membership when the store last answered, not the 2 they see now): 3 each, 6 in all, every lease degraded. A
     * new member joins, the maps are writable again, and decisions are the store's again.
     */
    @Test
    void embeddedMembers_membershipGivesTheReplicas() {
        try (TestCluster cluster = TestCluster.empty("faults-local-fallback-embedded")) {
            List<RateLimiter> replicas = new ArrayList<>();
            List<RateLimiters> factories = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                cluster.addMember(threeMembersNeeded(cluster, i));
            }
            FaultCluster.await(() -> cluster.members.get(0).getCluster().getMembers().size() == 3, GENEROUS,
                    () -> "three members did not form a cluster");
            for (HazelcastInstance member : cluster.members) {
                RateLimiters limiters = HazelcastRateLimiters.create(member);
                factories.add(limiters);
                replicas.add(limiters.limiter("fallback", SPEC, local().build()));
            }
            for (RateLimiter replica : replicas) {
                awaitStore(replica); // the membership is remembered with the store's answer
            }

            cluster.members.get(2).getLifecycleService().terminate();
            factories.get(2).close();
            List<RateLimiter> left = replicas.subList(0, 2);
            for (int i = 0; i < 2; i++) {
                // Hazelcast updates the protection from membership events on an executor of its own, after the
                // member list: until then the maps still take writes, and the store rightly answers.
                HazelcastInstance member = cluster.members.get(i);
                FaultCluster.await(() -> !member.getSplitBrainProtectionService()
                        .getSplitBrainProtection(THREE_MEMBERS).hasMinimumSize(), GENEROUS,
                        () -> "the member's leaving did not take the protection below three members");
            }
            List<Integer> granted = askEach(left, 5, LIMIT / 3);
            assertEquals(List.of(3, 3), granted, "10 over the 3 members seen when the store last answered");

            cluster.addMember(threeMembersNeeded(cluster, 3));
            for (RateLimiter replica : left) {
                awaitStore(replica);
                Lease lease = replica.tryAcquire(1);
                assertFalse(lease.isDegraded(), "the store decides again: " + lease);
                assertEquals(LIMIT, lease.limit());
            }
            factories.subList(0, 2).forEach(RateLimiters::close);
        }
    }

    /** Member {@code index}'s config, Sluice's maps refusing operations while fewer than 3 members are present. */
    private static Config threeMembersNeeded(TestCluster cluster, int index) {
        Config config = SluiceHazelcast.configure(cluster.memberConfig(index, null));
        config.addSplitBrainProtectionConfig(new SplitBrainProtectionConfig(THREE_MEMBERS, true, 3));
        for (Durability durability : Durability.values()) {
            config.getMapConfig(SluiceHazelcast.mapName("sluice", durability))
                    .setSplitBrainProtectionName(THREE_MEMBERS);
        }
        return config;
    }
}
