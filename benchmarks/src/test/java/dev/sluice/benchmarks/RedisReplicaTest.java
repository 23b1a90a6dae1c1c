package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** The replicated Redis peer: a real primary and replica, where {@code redis-server} is installed. */
final class RedisReplicaTest {

    /** The contender's writes on the primary reach the replica, which is what the peer's durability rests on. */
    @Test
    void start_replicaAttaches_andReceivesTheContendersBuckets() throws Exception {
        int primary = freePort();
        int replica = freePort();
        Optional<RedisReplica> pair = RedisReplica.start(primary, replica);
        assumeTrue(pair.isPresent(), "no redis-server on the PATH");
        try (RedisReplica running = pair.get();
                RedisContender contender = new RedisContender(10, 2, primary);
                Jedis replicaClient = new Jedis(RedisContender.HOST, replica)) {
            assertEquals(1, RedisReplica.replicas(primary));
            assertEquals(0, RedisReplica.replicas(replica), "the replica has none of its own");
            contender.flush();
            // A closed bucket: its grant leaves a bucket that lives an hour. An open one's lives 2 ms, and a
            // replica reports a key past its expiry as missing, so it could be gone before it is looked for.
            assertTrue(contender.decide(3, false));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!replicaClient.exists("closed/" + KeyNames.names(10)[3])) {
                assertTrue(System.nanoTime() < deadline, "the bucket did not reach the replica within 10 s");
                Thread.sleep(10);
            }
        }
        assertEquals(-1, RedisReplica.replicas(primary), "closing stops the servers it started");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
