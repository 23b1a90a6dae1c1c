package dev.sluice.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Redis + Lua driven the way Spring Cloud Gateway's {@code RedisRateLimiter} drives it: Lettuce, asynchronous,
 * every command written at once without waiting for earlier answers (auto-flush), over a few connections that
 * every caller shares (Spring's {@code ReactiveRedisTemplate} shares one native connection per connection
 * factory), {@code EVALSHA} of {@link RedisContender#SCRIPT}. Answers complete on Lettuce's event loop.
 *
 * <p>The open keys' bucket holds 10^9 tokens and refills one an hour, the spec Sluice's and Bucket4j's open keys
 * have: a bucket then lives an hour, as theirs do. ({@link RedisContender}'s open buckets refill 10^9 a second,
 * so each one expires a millisecond after its write and nearly every decision creates a new one.)
 */
final class LettuceContender implements Contender {
    /** ARGV of the open keys: capacity, tokens per period, period in ms. */
    private static final String[] OPEN_ARGS = {"1000000000", "1", "3600000"};
    private static final String[] CLOSED_ARGS = {"1", "1", "3600000"};

    private final RedisClient client;
    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    private final List<RedisAsyncCommands<String, String>> commands = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final String sha;
    private final String[] names;
    /** Each open key as the one-element KEYS array of its call, built once; closed keys (set-up only) per call. */
    private final String[][] open;

    /** @param connections how many connections every caller of this process shares, at least 1 */
    LettuceContender(int keys, int connections, int port) {
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be at least 1, was " + connections);
        }
        this.client = RedisClient.create(RedisURI.create(RedisContender.HOST, port));
        for (int i = 0; i < connections; i++) {
            StatefulRedisConnection<String, String> connection = client.connect();
            this.connections.add(connection);
            this.commands.add(connection.async());
        }
        this.sha = this.connections.get(0).sync().scriptLoad(RedisContender.SCRIPT);
        this.names = KeyNames.names(keys);
        this.open = new String[keys][];
        for (int i = 0; i < keys; i++) {
            open[i] = new String[] {"open/" + names[i]};
        }
    }

    /** The open keys' ARGV, for {@code redis-benchmark} running the same script. */
    static List<String> openArgs() {
        return List.of(OPEN_ARGS);
    }

    @Override
    public boolean decide(int key, boolean isOpen) {
        return decideAsync(key, isOpen).join();
    }

    @Override
    public CompletableFuture<Boolean> decideAsync(int key, boolean isOpen) {
        RedisAsyncCommands<String, String> redis = commands.size() == 1 ? commands.get(0)
                : commands.get(Math.floorMod(next.getAndIncrement(), commands.size()));
        return redis.<Long>evalsha(sha, ScriptOutputType.INTEGER, isOpen ? open[key] : new String[] {"closed/" + names[key]},
                isOpen ? OPEN_ARGS : CLOSED_ARGS).toCompletableFuture().thenApply(r -> r == 1L);
    }

    @Override
    public void close() {
        connections.forEach(StatefulRedisConnection::close);
        client.shutdown();
    }
}
