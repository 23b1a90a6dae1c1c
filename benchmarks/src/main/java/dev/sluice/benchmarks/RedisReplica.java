package dev.sluice.benchmarks;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * Redis as a replicated peer: a primary on {@link #PRIMARY_PORT} and one replica on {@link #REPLICA_PORT}
 * ({@code redis-server --replicaof 127.0.0.1 <primary>}), both without persistence, as {@code redis.sh} starts
 * the lone server. Redis replicates asynchronously: the primary answers a script before the replica applies
 * it, as Sluice's {@code REPLICATED_ASYNC} answers before its backup lands, so this is the peer at equal
 * durability. {@link BenchmarkMain} starts the pair for the passes that use it and stops it at the end; a pair
 * already running on those ports (with its replica attached) is used as it is.
 */
final class RedisReplica implements AutoCloseable {
    static final int PRIMARY_PORT = Integer.getInteger("sluice.bench.redis.replica.port", 6391);
    static final int REPLICA_PORT = PRIMARY_PORT + 1;

    private final List<Process> processes;

    private RedisReplica(List<Process> processes) {
        this.processes = processes;
    }

    /** The pair on {@link #PRIMARY_PORT} and {@link #REPLICA_PORT}. */
    static Optional<RedisReplica> start() throws IOException {
        return start(PRIMARY_PORT, REPLICA_PORT);
    }

    /** The running pair, started if need be; empty when there is no {@code redis-server} to start. */
    static Optional<RedisReplica> start(int primaryPort, int replicaPort) throws IOException {
        if (replicas(primaryPort) >= 1) {
            return Optional.of(new RedisReplica(List.of()));
        }
        Optional<String> server = server();
        if (server.isEmpty()) {
            return Optional.empty();
        }
        List<Process> processes = new ArrayList<>();
        RedisReplica pair = new RedisReplica(processes);
        try {
            processes.add(launch(server.get(), primaryPort));
            processes.add(launch(server.get(), replicaPort, "--replicaof", "127.0.0.1", Integer.toString(primaryPort)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (replicas(primaryPort) < 1) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("the Redis replica on " + replicaPort + " did not attach to the primary on "
                            + primaryPort + " within 30 s");
                }
                BenchCluster.sleep(50);
            }
            return Optional.of(pair);
        } catch (IOException | RuntimeException e) {
            pair.close();
            throw e;
        }
    }

    /**
     * The replicas attached to the primary on {@code port} whose link is up ({@code INFO replication}'s
     * {@code connected_slaves}), or -1 when nothing answers there.
     */
    static int replicas(int port) {
        try (Jedis redis = new Jedis(RedisContender.HOST, port)) {
            for (String line : redis.info("replication").split("\r?\n")) {
                if (line.startsWith("connected_slaves:")) {
                    return Integer.parseInt(line.substring("connected_slaves:".length()).trim());
                }
            }
            return 0;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static Optional<String> server() {
        String configured = System.getProperty("sluice.bench.redis.server");
        if (configured != null) {
            return Optional.of(configured);
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            File candidate = new File(dir, "redis-server");
            if (candidate.canExecute()) {
                return Optional.of(candidate.getPath());
            }
        }
        return Optional.empty();
    }

    private static Process launch(String server, int port, String... more) throws IOException {
        List<String> command = new ArrayList<>(List.of(server, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", System.getProperty("java.io.tmpdir"), "--logfile",
                new File(System.getProperty("java.io.tmpdir"), "sluice-bench-redis-" + port + ".log").getPath()));
        command.addAll(List.of(more));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (replicas(port) < 0) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IOException("redis-server did not answer on 127.0.0.1:" + port + " (see its log in "
                        + System.getProperty("java.io.tmpdir") + ")");
            }
            BenchCluster.sleep(50);
        }
        return process;
    }

    /** Stops the servers this pair started (a pair found running is left alone). */
    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
