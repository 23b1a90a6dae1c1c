package dev.sluice.demo;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

/**
 * Starts the demo: two app instances sharing one budget per client (see {@link DemoCluster}), runs the
 * {@link Tour}, then serves until the JVM is stopped (Ctrl-C), when a shutdown hook stops the servers and
 * members. With {@code --tour-only} (or {@code -Dsluice.demo.tour-only=true}) it stops after the tour
 * and exits 0 if every check held, 1 if not; 2 means it could not start. Ports and addresses are read
 * by {@link DemoSettings#fromSystemProperties(String[])}; with {@code -Dsluice.demo.exit-with-parent=true}
 * (set by {@code exec:exec@demo}) a serving demo also stops when its parent process (Maven) ends.
 */
public final class SluiceDemo {
    private SluiceDemo() {}

    /** Runs the demo; see the class comment for the arguments, properties and exit status. */
    public static void main(String[] args) {
        DemoSettings settings;
        try {
            settings = DemoSettings.fromSystemProperties(args);
        } catch (IllegalArgumentException e) {
            System.err.println("sluice demo: " + e.getMessage());
            System.exit(2);
            return;
        }
        int status = run(settings, System.out);
        if (status != 0 || settings.tourOnly()) {
            System.exit(status);
        }
        // Serving: Jetty's threads keep the JVM alive until it is stopped.
        if (Boolean.getBoolean(DemoSettings.PREFIX + "exit-with-parent")) {
            // exec:exec does not stop its child when Maven itself is killed; do not outlive it.
            ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> System.exit(0)));
        }
    }

    /**
     * Starts both instances and runs the tour. In tour-only mode stops them again; otherwise leaves them
     * serving and registers a shutdown hook that stops them.
     *
     * @return 0 if the tour held, 1 if a check failed, 2 if the demo could not start
     */
    static int run(DemoSettings settings, PrintStream out) {
        long started = System.nanoTime();
        DemoCluster cluster;
        try {
            cluster = DemoCluster.start(settings);
        } catch (Exception e) {
            out.println("sluice demo: could not start: " + e);
            out.println("  Ports in use? Choose others, e.g. -Ddemo.http.a=9081 -Ddemo.http.b=9082"
                    + " -Ddemo.hz.a=5801 -Ddemo.hz.b=5802 (Maven) or -Dsluice.demo.http-a=... (java).");
            return 2;
        }
        boolean held;
        try {
            printBanner(cluster, settings, Duration.ofNanos(System.nanoTime() - started), out);
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            String keyPrefix = "demo-" + UUID.randomUUID().toString().substring(0, 8);
            held = new Tour(client, cluster.a().baseUri(), cluster.b().baseUri(), out).run(keyPrefix);
        } catch (Exception e) {
            out.println("sluice demo: the tour failed: " + e);
            held = false;
        } catch (Error e) {
            cluster.close();
            throw e;
        }
        if (settings.tourOnly()) {
            cluster.close();
            return held ? 0 : 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println("Stopping the demo...");
            cluster.close();
        }, "sluice-demo-shutdown"));
        printUsage(cluster, out);
        return 0;
    }

    private static void printBanner(DemoCluster cluster, DemoSettings settings, Duration startUp, PrintStream out) {
        out.println("Sluice demo: two app instances, one budget per client, shared through a Hazelcast cluster");
        for (DemoInstance i : new DemoInstance[] {cluster.a(), cluster.b()}) {
            out.printf("  %s  %s  Hazelcast member %s%n", i.name(), i.baseUri(),
                    i.member().getCluster().getLocalMember().getAddress());
        }
        out.printf(Locale.ROOT, "  cluster '%s': %d members; started in %.1f s%n", settings.clusterName(),
                cluster.a().member().getCluster().getMembers().size(), startUp.toMillis() / 1000.0);
        out.println();
    }

    private static void printUsage(DemoCluster cluster, PrintStream out) {
        URI a = cluster.a().baseUri();
        URI b = cluster.b().baseUri();
        out.println();
        out.println("Serving until stopped (Ctrl-C). Each endpoint has a limit of 10 per X-Api-Key:");
        DemoPolicies.descriptions().forEach((name, text) -> out.printf("  /api/%-16s %s%n", name, text));
        out.println("Try:");
        out.printf("  curl -i -H 'X-Api-Key: me' %s/api/token-bucket%n", a);
        out.printf("  for i in $(seq 6); do curl -s -o /dev/null -w '%%{http_code} ' -H 'X-Api-Key: me'"
                + " %s/api/fixed-window; curl -s -o /dev/null -w '%%{http_code} ' -H 'X-Api-Key: me'"
                + " %s/api/fixed-window; done; echo%n", a, b);
        out.printf("  curl -s -H 'X-Api-Key: me' '%s/api/concurrency?sleep=5000' &%n", b);
    }
}
