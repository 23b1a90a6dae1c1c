package dev.sluice.benchmarks;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPooled;

/**
 * A token bucket in Redis, one atomic Lua script per decision (the approach of the best-known non-Java
 * limiters): the script reads the bucket, refills it from Redis's own clock, takes a token if there is
 * one and writes the bucket with a TTL only when it took one. Jedis with a connection per caller thread.
 */
final class RedisContender implements Contender {
    static final String HOST = "127.0.0.1";
    static final int PORT = Integer.getInteger("sluice.bench.redis.port", 6390);

    /** KEYS[1] bucket; ARGV: capacity, tokens per period, period in ms. Returns 1 if granted. */
    static final String SCRIPT = String.join("\n",
            "local cap = tonumber(ARGV[1])",
            "local rate = tonumber(ARGV[2]) / tonumber(ARGV[3])",
            "local t = redis.call('TIME')",
            "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
            "local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')",
            "local tokens = tonumber(b[1])",
            "local ts = tonumber(b[2])",
            "if tokens == nil then tokens = cap; ts = now end",
            "if now > ts then tokens = math.min(cap, tokens + (now - ts) * rate); ts = now end",
            "if tokens < 1 then return 0 end",
            "tokens = tokens - 1",
            "redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', ts)",
            "redis.call('PEXPIRE', KEYS[1], math.ceil((cap - tokens) / rate) + 1)",
            "return 1");

    private final JedisPooled redis;
    private final ExecutorService setup = Executors.newFixedThreadPool(16, r -> {
        Thread t = new Thread(r, "redis-setup");
        t.setDaemon(true);
        return t;
    });
    private final String sha;
    private final String[] open;
    private final String[] closed;
    private static final List<String> OPEN_ARGS = List.of("1000000000", "1000000000", "1000");
    private static final List<String> CLOSED_ARGS = List.of("1", "1", "3600000");

    RedisContender(int keys, int threads) {
        this(keys, threads, PORT);
    }

    /** The same buckets in the Redis on {@code port} (a primary with a replica: {@link RedisReplica}). */
    RedisContender(int keys, int threads, int port) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(threads + 8);
        pool.setMaxIdle(threads + 8);
        this.redis = new JedisPooled(pool, HOST, port);
        this.sha = redis.scriptLoad(SCRIPT);
        String[] names = KeyNames.names(keys);
        this.open = new String[keys];
        this.closed = new String[keys];
        for (int i = 0; i < keys; i++) {
            open[i] = "open/" + names[i];
            closed[i] = "closed/" + names[i];
        }
    }

    /** True if a Redis server answers on {@link #PORT}. */
    static boolean available() {
        try (JedisPooled probe = new JedisPooled(HOST, PORT)) {
            return "PONG".equals(probe.ping());
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public boolean decide(int key, boolean isOpen) {
        Object r = redis.evalsha(sha, List.of(isOpen ? open[key] : closed[key]), isOpen ? OPEN_ARGS : CLOSED_ARGS);
        return ((Long) r) == 1L;
    }

    /** On a small pool of its own: Jedis has no async API. */
    @Override
    public CompletableFuture<Boolean> decideAsync(int key, boolean isOpen) {
        return CompletableFuture.supplyAsync(() -> decide(key, isOpen), setup);
    }

    /** Deletes every bucket (the benchmark owns this Redis). */
    void flush() {
        redis.flushAll();
    }

    @Override
    public void close() {
        setup.shutdown();
        redis.close();
    }
}
