package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Scenario 2: every member is killed while clients acquire; later one comes back. */
@ExtendWith(Reaper.class)
final class FaultClusterLostTest {
    private static final Duration DECISION_TIMEOUT = Duration.ofSeconds(1);
    /** Generous, for a loaded 2-core machine. */
    private static final Duration MARGIN = Duration.ofSeconds(2);
    private static final List<FailureMode> MODES = List.of(FailureMode.ALLOW, FailureMode.DENY, FailureMode.THROW);

    /** One decision as a caller saw it. */
    private record Call(FailureMode mode, long startNanos, long nanos, Lease lease, RuntimeException error) {}

    /**
     * Two member JVMs, one client ({@code failFast} with the 1 s decision timeout), three limiters that never
     * run out ({@code ALLOW}, {@code DENY}, {@code THROW}; decision timeout 1 s, 2 retries), each called in a
     * loop by two threads; both members are killed with SIGKILL while they run, and the load continues for
     * 2 s.
     *
     * <p>Expected: every call returns within the decision timeout plus a margin (asserted: 1 s + 2 s); a call
     * either gets an ordinary decision (it reached the cluster in time) or the failure mode's: {@code ALLOW}
     * a granted, degraded lease; {@code DENY} a refused, degraded lease; {@code THROW} a
     * {@link DecisionUnavailableException}; no other exception; every call started after both JVMs were gone
     * gets the failure mode's outcome. When a member comes back (on the same port, empty: the budgets died
     * with the cluster), the same client reconnects on its own and decisions are exact again (10 of 15 for a
     * limit of 10, none degraded). Closing the limiters and the client leaves no thread and no socket behind.
     * Latency after the kill (p50/p99/max) is printed.
     */
    @Test
    void clusterLost_everyCallFollowsTheFailureModeInTimeAndRecoversWithoutRestart() throws Exception {
        Set<Thread> threadsBefore = Set.copyOf(Thread.getAllStackTraces().keySet());
        long socketsBefore = openSockets();
        try (FaultCluster cluster = FaultCluster.start("faults-cluster-lost", 2)) {
            HazelcastInstance client = cluster.client(DECISION_TIMEOUT);
            FaultCluster.awaitMembers(client, 2, Duration.ofSeconds(30));
            RateLimiters limiters = HazelcastRateLimiters.create(client);
            LimitSpec unlimited = LimitSpec.fixedWindow(1_000_000_000L, Duration.ofHours(1));
            List<RateLimiter> byMode = MODES.stream().map(mode -> limiters.limiter("lost-" + mode, unlimited,
                    LimiterOptions.builder().failureMode(mode).decisionTimeout(DECISION_TIMEOUT).maxRetries(2).build()))
                    .toList();

            List<Call> calls = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean running = new AtomicBoolean(true);
            CountDownLatch warm = new CountDownLatch(MODES.size() * 2);
            ExecutorService pool = Executors.newFixedThreadPool(MODES.size() * 2);
            long allDeadAt;
            try {
                List<Future<?>> loops = new ArrayList<>();
                for (int t = 0; t < MODES.size() * 2; t++) {
                    RateLimiter limiter = byMode.get(t % MODES.size());
                    loops.add(pool.submit(() -> {
                        int made = 0;
                        while (running.get()) {
                            long t0 = System.nanoTime();
                            Lease lease = null;
                            RuntimeException error = null;
                            try {
                                lease = limiter.tryAcquire(1);
                            } catch (RuntimeException e) {
                                error = e;
                            }
                            calls.add(new Call(limiter.options().failureMode(), t0, System.nanoTime() - t0, lease, error));
                            if (++made == 20) {
                                warm.countDown();
                            }
                            MemberProcess.sleep(2);
                        }
                        return null;
                    }));
                }
                assertTrue(warm.await(30, TimeUnit.SECONDS), "no load before the kill");
                cluster.member(0).close(); // SIGKILL both, then wait for both to be gone
                cluster.member(1).close();
                allDeadAt = System.nanoTime();
                MemberProcess.sleep(2_000);
                running.set(false);
                for (Future<?> loop : loops) {
                    loop.get(DECISION_TIMEOUT.plus(MARGIN).toMillis() + 5_000, TimeUnit.MILLISECONDS);
                }
            } finally {
                running.set(false);
                pool.shutdownNow();
            }

            List<Call> all = List.copyOf(calls);
            long limitNanos = DECISION_TIMEOUT.plus(MARGIN).toNanos();
            StringBuilder report = new StringBuilder();
            for (FailureMode mode : MODES) {
                List<Call> after = all.stream().filter(c -> c.mode == mode && c.startNanos >= allDeadAt).toList();
                long[] nanos = after.stream().mapToLong(Call::nanos).toArray();
                report.append(String.format("%n  %-5s after the kill: %s", mode, Latencies.summary(nanos)));
                assertFalse(after.isEmpty(), mode + ": no call after the kill");
            }
            System.out.println("[faults] scenario 2: " + all.size() + " calls; decision latency once every member"
                    + " was gone (decision timeout " + DECISION_TIMEOUT.toMillis() + " ms, 2 retries):" + report);
            for (Call call : all) {
                assertTrue(call.nanos <= limitNanos, () -> call.mode + " call took " + call.nanos / 1_000_000 + " ms");
                boolean afterKill = call.startNanos >= allDeadAt;
                switch (call.mode) {
                    case ALLOW -> {
                        assertTrue(call.error == null, () -> "ALLOW threw " + call.error);
                        assertTrue(call.lease.isAcquired(), "ALLOW refused: " + call.lease);
                        assertTrue(!afterKill || call.lease.isDegraded(), "ALLOW not degraded after the kill");
                    }
                    case DENY -> {
                        assertTrue(call.error == null, () -> "DENY threw " + call.error);
                        assertEquals(!call.lease.isDegraded(), call.lease.isAcquired(), "DENY: " + call.lease);
                        assertTrue(!afterKill || call.lease.isDegraded(), "DENY not degraded after the kill");
                    }
                    case THROW -> {
                        if (call.error != null) {
                            assertTrue(call.error instanceof DecisionUnavailableException, () -> "THROW threw " + call.error);
                        } else {
                            assertTrue(!afterKill, "THROW decided after the kill: " + call.lease);
                            assertTrue(call.lease.isAcquired() && !call.lease.isDegraded(), "THROW: " + call.lease);
                        }
                    }
                }
            }

            cluster.restart(0);
            FaultCluster.awaitMembers(client, 1, Duration.ofSeconds(30));
            RateLimiter exact = limiters.limiter("lost-after-restart", LimitSpec.fixedWindow(10, Duration.ofDays(1)),
                    LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(5)).build());
            // A member in the client's member list is not yet a connection to it: probes (which take nothing)
            // until one is decided, however long the reconnection takes on a loaded machine.
            FaultCluster.await(() -> {
                try {
                    return !exact.tryAcquire(0).isDegraded();
                } catch (DecisionUnavailableException notYet) {
                    return false;
                }
            }, Duration.ofSeconds(30), () -> "the client did not reconnect within 30 s");
            Windows.avoidBoundary(Duration.ofDays(1), Duration.ofSeconds(10));
            int granted = 0;
            for (int i = 0; i < 15; i++) {
                Lease lease = exact.tryAcquire(1);
                assertFalse(lease.isDegraded(), "degraded after the member came back: " + lease);
                granted += lease.isAcquired() ? 1 : 0;
            }
            assertEquals(10, granted, "exact again after the member came back");
            assertTrue(byMode.get(2).tryAcquire(1).isAcquired(), "THROW limiter decides again");
            limiters.close();
        }

        FaultCluster.await(() -> leakedThreads(threadsBefore).isEmpty(), Duration.ofSeconds(15),
                () -> "threads left after closing: " + leakedThreads(threadsBefore));
        if (socketsBefore >= 0) {
            FaultCluster.await(() -> openSockets() <= socketsBefore, Duration.ofSeconds(15),
                    () -> "sockets left after closing: " + openSockets() + ", before: " + socketsBefore + "; "
                            + tcpRows());
        }
    }

    /**
     * Threads started since {@code before} and still alive, except JVM-wide pools that outlive any client
     * by design (the common pool, the process reaper that {@link ProcessBuilder} keeps for a minute).
     */
    private static List<String> leakedThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !before.contains(t))
                .map(Thread::getName)
                .filter(n -> !n.startsWith("ForkJoinPool.commonPool") && !n.equals("process reaper")
                        && !n.equals("Attach Listener"))
                .sorted().collect(Collectors.toList());
    }

    /**
     * TCP sockets this JVM holds open: its file descriptors that are sockets listed in Linux's
     * {@code /proc/net/tcp} or {@code tcp6} (any state, listening included); -1 where that cannot be read.
     * JVM-wide Unix-domain sockets (a name-service connection, say) are not Hazelcast connections and are
     * not counted.
     */
    private static long openSockets() {
        List<String> rows = tcpRows();
        return rows == null ? -1 : rows.size();
    }

    private static List<String> tcpRows() {
        try (Stream<Path> list = Files.list(Path.of("/proc/self/fd"))) {
            Set<String> inodes = list.map(p -> {
                try {
                    return Files.readSymbolicLink(p).toString();
                } catch (IOException | UnsupportedOperationException e) {
                    return "";
                }
            }).filter(l -> l.startsWith("socket:[")).map(l -> l.substring(8, l.length() - 1))
                    .collect(Collectors.toSet());
            List<String> rows = new ArrayList<>();
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                for (String row : Files.readAllLines(Path.of(table))) {
                    String[] f = row.trim().split("\\s+");
                    if (f.length > 9 && inodes.contains(f[9])) {
                        rows.add(row.trim());
                    }
                }
            }
            return rows;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
