package dev.sluice.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import java.io.PrintStream;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The launcher's {@code inspect} and {@code reset} commands: read or reset one key of a running cluster, as a client.
 * <pre>{@code
 * java -jar sluice-member-<version>.jar inspect <key> <algorithm> <setting>=<value>...
 * java -jar sluice-member-<version>.jar reset <key> <algorithm> <setting>=<value>... [remaining=<n>]
 * }</pre>
 * The key is the store key as the Actuator endpoint and the logs show it: {@code <prefix>/<policy>/<partition>} for a
 * partitioned limiter (an HTTP policy's client), {@code <prefix>/<name>} for a plain one. The spec is the policy's:
 * its algorithm and its settings by the names the {@code sluice.policies.*} settings use ({@code permit-limit=5},
 * {@code window=PT15M}; durations in ISO-8601, counts as whole numbers); a composite cannot be given here. Without
 * {@code remaining}, a reset is to a full budget. The cluster is found as the launcher finds it:
 * {@value SluiceMember#CLUSTER_PROPERTY} (default {@code sluice}), {@value SluiceMember#MEMBERS_PROPERTY} (default
 * {@code 127.0.0.1:5701}), {@value SluiceMember#MAP_PROPERTY} (default {@code sluice}).
 */
final class KeyCommands {
    static final List<String> COMMANDS = List.of("inspect", "reset");
    private static final String REMAINING = "remaining";

    private KeyCommands() {}

    /** Whether the launcher's arguments name a command of this class. */
    static boolean handles(String[] args) {
        return args.length > 0 && COMMANDS.contains(args[0]);
    }

    /**
     * Runs a command against the cluster {@code properties} name, printing the key's state to {@code out}.
     *
     * @throws IllegalArgumentException naming the argument and what was expected
     */
    static KeyState run(String[] args, UnaryOperator<String> properties, PrintStream out) {
        Command command = Command.parse(args);
        ClientConfig config = new ClientConfig();
        config.setClusterName(Optional.ofNullable(properties.apply(SluiceMember.CLUSTER_PROPERTY)).orElse("sluice"));
        String members = Optional.ofNullable(properties.apply(SluiceMember.MEMBERS_PROPERTY)).orElse("127.0.0.1:5701");
        config.getNetworkConfig().addAddress(Arrays.stream(members.split(",")).map(String::trim)
                .filter(s -> !s.isEmpty()).toArray(String[]::new));
        config.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(30_000);
        String map = Optional.ofNullable(properties.apply(SluiceMember.MAP_PROPERTY))
                .orElse(SluiceHazelcast.DEFAULT_MAP_NAME);
        HazelcastInstance client = HazelcastClient.newHazelcastClient(SluiceHazelcast.configure(config));
        try (RateLimiters limiters = HazelcastRateLimiters.create(client, map, command.prefix())) {
            KeyState state = command.apply(limiters);
            print(command.name(), state, out);
            return state;
        } finally {
            client.shutdown();
        }
    }

    private static void print(String command, KeyState s, PrintStream out) {
        out.println((command.equals("reset") ? "after the reset, " : "") + s.key());
        out.println("  " + s.algorithm() + ", " + s.spec());
        out.println("  remaining " + s.remaining() + " of " + s.limit() + ", reset after " + s.resetAfter()
                + ", retry after " + s.retryAfter().map(Duration::toString).orElse("(when a lease is released)"));
        out.println("  read at " + s.readAt() + (s.onOverflowCell() ? ", on a shared overflow cell (never reset)"
                : s.ownState() ? ", state of its own" : ", no state of its own (a full budget)"));
    }

    /** One parsed command line. */
    record Command(String name, String prefix, String limiter, String partition, LimitSpec spec, Long remaining) {

        static Command parse(String[] args) {
            if (args.length < 3 || !COMMANDS.contains(args[0])) {
                throw new IllegalArgumentException("usage: inspect|reset <key> <algorithm> <setting>=<value>..."
                        + " [remaining=<n>], was " + String.join(" ", args));
            }
            String[] key = args[1].split("/", 3);
            if (key.length < 2 || key[0].isEmpty() || key[1].isEmpty()) {
                throw new IllegalArgumentException("key must be <prefix>/<policy>/<partition> or <prefix>/<name>, was '"
                        + args[1] + "'");
            }
            AlgorithmDescription algorithm = AlgorithmDescription.named(args[2]);
            Map<String, Object> values = new LinkedHashMap<>();
            Long remaining = null;
            for (String setting : Arrays.copyOfRange(args, 3, args.length)) {
                int eq = setting.indexOf('=');
                String name = eq < 0 ? setting : setting.substring(0, eq);
                String text = eq < 0 ? "" : setting.substring(eq + 1).trim();
                if (name.equals(REMAINING) && args[0].equals("reset")) {
                    remaining = whole(name, text);
                    continue;
                }
                AlgorithmDescription.Parameter p = algorithm.parameters().stream()
                        .filter(q -> q.setting().equals(name)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("unknown setting '" + name + "' of "
                                + algorithm.name() + "; expected " + algorithm.parameters().stream()
                                        .map(AlgorithmDescription.Parameter::setting).toList()));
                values.put(p.name(), p.isDuration() ? duration(name, text) : p.isCount() ? whole(name, text) : text);
            }
            return new Command(args[0], key[0], key[1], key.length == 3 ? key[2] : null, algorithm.spec(values),
                    remaining);
        }

        KeyState apply(RateLimiters limiters) {
            if (partition == null) {
                var one = limiters.limiter(limiter, spec);
                return name.equals("inspect") ? one.inspect() : remaining == null ? one.reset() : one.reset(remaining);
            }
            var policy = limiters.partitioned(limiter, spec);
            return name.equals("inspect") ? policy.inspect(partition)
                    : remaining == null ? policy.reset(partition) : policy.reset(partition, remaining);
        }

        private static long whole(String name, String text) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be a whole number, was '" + text + "'", e);
            }
        }

        private static Duration duration(String name, String text) {
            try {
                return Duration.parse(text);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(name + " must be an ISO-8601 duration such as PT15M, was '" + text
                        + "'", e);
            }
        }
    }
}
