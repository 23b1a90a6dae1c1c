package dev.sluice.demo;

import java.util.Objects;

/**
 * Where the demo listens and what it does after its tour. Immutable.
 *
 * @param clusterName Hazelcast cluster name; members of other clusters on the same ports are refused
 * @param bind the loopback (or LAN) address every member and server binds to
 * @param httpPortA HTTP port of instance A; 0 picks a free port
 * @param httpPortB HTTP port of instance B; 0 picks a free port
 * @param hazelcastPortA Hazelcast member port of instance A
 * @param hazelcastPortB Hazelcast member port of instance B
 * @param tourOnly true to run the tour and stop; false to keep serving afterwards
 */
record DemoSettings(String clusterName, String bind, int httpPortA, int httpPortB, int hazelcastPortA,
        int hazelcastPortB, boolean tourOnly) {

    /** Prefix of the system properties read by {@link #fromSystemProperties(String[])}. */
    static final String PREFIX = "sluice.demo.";

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming a port outside 0-65535 (1-65535 for Hazelcast) or equal ports
     */
    DemoSettings {
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(bind, "bind");
        checkPort("http-a", httpPortA, 0);
        checkPort("http-b", httpPortB, 0);
        checkPort("hazelcast-a", hazelcastPortA, 1);
        checkPort("hazelcast-b", hazelcastPortB, 1);
        if (hazelcastPortA == hazelcastPortB) {
            throw new IllegalArgumentException("hazelcast-a and hazelcast-b must differ, both were " + hazelcastPortA);
        }
        if (httpPortA != 0 && httpPortA == httpPortB) {
            throw new IllegalArgumentException("http-a and http-b must differ, both were " + httpPortA);
        }
    }

    /**
     * The settings from the system properties {@code sluice.demo.cluster} (default {@code sluice-demo}),
     * {@code .bind} (127.0.0.1), {@code .http-a} (8081), {@code .http-b} (8082), {@code .hazelcast-a}
     * (5701), {@code .hazelcast-b} (5702) and {@code .tour-only} (false); the argument
     * {@code --tour-only} also sets the last.
     *
     * @throws IllegalArgumentException naming a property that is not a valid number, or an unknown argument
     */
    static DemoSettings fromSystemProperties(String[] args) {
        boolean tourOnly = Boolean.parseBoolean(System.getProperty(PREFIX + "tour-only", "false"));
        for (String arg : args) {
            if (arg.equals("--tour-only")) {
                tourOnly = true;
            } else if (!arg.isBlank()) {
                throw new IllegalArgumentException("unknown argument '" + arg + "'; the only argument is --tour-only");
            }
        }
        return new DemoSettings(System.getProperty(PREFIX + "cluster", "sluice-demo"),
                System.getProperty(PREFIX + "bind", "127.0.0.1"),
                intProperty("http-a", 8081), intProperty("http-b", 8082),
                intProperty("hazelcast-a", 5701), intProperty("hazelcast-b", 5702), tourOnly);
    }

    private static int intProperty(String name, int defaultValue) {
        String value = System.getProperty(PREFIX + name);
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PREFIX + name + " must be a port number, was '" + value + "'", e);
        }
    }

    private static void checkPort(String name, int port, int min) {
        if (port < min || port > 65_535) {
            throw new IllegalArgumentException(PREFIX + name + " must be between " + min + " and 65535, was " + port);
        }
    }
}
