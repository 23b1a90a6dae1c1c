package dev.sluice.it.faults;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * One Hazelcast member in its own JVM, run through {@link FaultMember}: {@code java} from
 * {@code java.home}, {@code -Xmx256m}, Hazelcast's {@code --add-opens} flags (those of this JVM), phone-home
 * off, {@code java.util.logging} at WARNING except cluster membership and lifecycle, all output in a log
 * file under {@code target/faults/}.
 *
 * <p>Lifetime: a member never outlives the test run. {@link #close()} (and {@link #kill()}) destroy it
 * forcibly; every live member is also registered for a JVM shutdown hook and for {@link #killAll()} (called
 * by {@link FaultCluster#close()} and {@link Reaper}); and if this JVM dies without running either (SIGKILL),
 * the member's watchdog sees its standard input close and halts.
 */
final class MemberProcess implements AutoCloseable {
    /** A pseudo property: the member JVM's collector flag (serial unless given), not passed on as a property. */
    static final String COLLECTOR_PROPERTY = "sluice.test.collector";
    private static final Set<MemberProcess> LIVE = ConcurrentHashMap.newKeySet();
    private static final Path DIR = Path.of("target", "faults").toAbsolutePath();
    /** Mirrors the root pom's {@code hazelcast.jvm.opens}, used when this JVM was started without them. */
    private static final List<String> DEFAULT_OPENS = List.of("--add-modules", "java.se",
            "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(MemberProcess::killAll, "fault-member-reaper"));
    }

    final String name;
    final Path log;
    private final Process process;
    private final OutputStream stdin;

    private MemberProcess(String name, Path log, Process process) {
        this.name = name;
        this.log = log;
        this.process = process;
        this.stdin = process.getOutputStream();
    }

    /**
     * Starts {@code FaultMember mainClass args} in a new JVM with {@code classpath} and the system
     * properties {@code properties}; returns at once (see {@link #awaitOutput}).
     */
    static MemberProcess start(String name, String classpath, Map<String, String> properties, String mainClass,
            List<String> args) {
        return start(name, classpath, "256m", properties, mainClass, args);
    }

    /** {@link #start(String, String, Map, String, List)} with a maximum heap of {@code maxHeap} ({@code -Xmx}). */
    static MemberProcess start(String name, String classpath, String maxHeap, Map<String, String> properties,
            String mainClass, List<String> args) {
        try {
            Files.createDirectories(DIR);
            Path log = DIR.resolve(name + ".log");
            Path logging = DIR.resolve("member-logging.properties");
            if (!Files.exists(logging)) {
                Files.writeString(logging, String.join("\n",
                        "handlers=java.util.logging.ConsoleHandler",
                        "java.util.logging.ConsoleHandler.level=ALL",
                        "java.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n",
                        ".level=WARNING",
                        "com.hazelcast.internal.cluster.level=INFO",
                        "com.hazelcast.instance.impl.level=INFO",
                        "com.hazelcast.core.LifecycleService.level=INFO",
                        "com.hazelcast.internal.partition.impl.MigrationManager.level=INFO", ""));
            }
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            // A member may run another collector: the JVM sizes some things (and Sluice's default bound) by it.
            String collector = properties.getOrDefault(COLLECTOR_PROPERTY, "-XX:+UseSerialGC");
            command.addAll(List.of("-Xmx" + maxHeap, collector, "-XX:TieredStopAtLevel=1", "-Xss512k"));
            command.addAll(hazelcastOpens());
            command.add("-Dhazelcast.phone.home.enabled=false");
            command.add("-Dhazelcast.logging.type=jdk");
            command.add("-Djava.util.logging.config.file=" + logging);
            properties.forEach((k, v) -> {
                if (!k.equals(COLLECTOR_PROPERTY)) {
                    command.add("-D" + k + "=" + v);
                }
            });
            command.addAll(List.of("-cp", classpath, FaultMember.class.getName(), mainClass));
            command.addAll(args);
            Files.writeString(log, "# " + String.join(" ", command).replace(classpath, "<classpath>") + "\n");
            Process process = new ProcessBuilder(command)
                    .directory(DIR.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            MemberProcess member = new MemberProcess(name, log, process);
            LIVE.add(member);
            return member;
        } catch (IOException e) {
            throw new IllegalStateException("could not start member " + name, e);
        }
    }

    /** The flags of this JVM that Hazelcast asks for, or the root pom's list. */
    static List<String> hazelcastOpens() {
        List<String> input = ManagementFactory.getRuntimeMXBean().getInputArguments();
        List<String> opens = new ArrayList<>();
        for (int i = 0; i < input.size(); i++) {
            String arg = input.get(i);
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports") || arg.startsWith("--add-modules")) {
                opens.add(arg);
                if (!arg.contains("=") && i + 1 < input.size()) {
                    opens.add(input.get(++i));
                }
            }
        }
        return opens.isEmpty() ? DEFAULT_OPENS : opens;
    }

    /**
     * The test classpath as plain entries: {@code java.class.path}, with surefire's manifest-only booter jar
     * expanded into its {@code Class-Path}.
     */
    static List<String> testClasspath() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            String manifestPath = manifestClassPath(entry);
            if (manifestPath == null) {
                entries.add(entry);
            } else {
                for (String url : manifestPath.trim().split("\\s+")) {
                    entries.add(url.startsWith("file:") ? Path.of(URI.create(url)).toString() : url);
                }
            }
        }
        return entries;
    }

    private static String manifestClassPath(String entry) {
        if (!entry.endsWith(".jar") || !Path.of(entry).getFileName().toString().startsWith("surefirebooter")) {
            return null;
        }
        try (JarFile jar = new JarFile(entry)) {
            Manifest manifest = jar.getManifest();
            return manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
        } catch (IOException e) {
            return null;
        }
    }

    /** {@link #testClasspath()} without the entries {@code exclude} matches, joined. */
    static String classpath(Predicate<String> exclude) {
        return String.join(File.pathSeparator, testClasspath().stream().filter(exclude.negate()).toList());
    }

    /**
     * Waits until the member's output contains {@code marker}.
     *
     * @throws IllegalStateException with the log's tail if the JVM exits or {@code timeout} passes first
     */
    MemberProcess awaitOutput(String marker, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String output = output();
            if (output.contains(marker)) {
                return this;
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("member " + name + (process.isAlive() ? " did not print '" + marker
                        + "' within " + timeout : " exited with " + process.exitValue()) + "; log " + log + ":\n"
                        + tail(output));
            }
            sleep(50);
        }
    }

    /** Everything the member printed so far. */
    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static String tail(String output) {
        return output.length() <= 4000 ? output : "..." + output.substring(output.length() - 4000);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL, then waits for the JVM to be gone. */
    void kill() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /** Sends one line to the member's {@link FaultMember} watchdog. */
    void command(String line) {
        try {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new IllegalStateException("member " + name + " does not take commands: " + e, e);
        }
    }

    /**
     * Graceful: the member migrates its partitions away and leaves ({@code HazelcastInstance.shutdown()}),
     * then the JVM exits.
     *
     * @throws IllegalStateException if it has not exited within {@code timeout} (it is then killed)
     */
    void stop(Duration timeout) {
        try {
            stdin.write("stop\n".getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            // already gone
        }
        if (!awaitExit(timeout)) {
            kill();
            throw new IllegalStateException("member " + name + " did not stop within " + timeout + "; log " + log);
        }
    }

    private boolean awaitExit(Duration timeout) {
        try {
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (exited) {
                LIVE.remove(this);
                closeStdin();
            }
            return exited;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void closeStdin() {
        try {
            stdin.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    /** Kills the JVM if it still runs. Idempotent. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        } else {
            LIVE.remove(this);
            closeStdin();
        }
    }

    /** Kills every member JVM this test JVM started and has not yet seen exit. */
    static void killAll() {
        for (MemberProcess member : List.copyOf(LIVE)) {
            member.process.destroyForcibly();
        }
        for (MemberProcess member : List.copyOf(LIVE)) {
            member.awaitExit(Duration.ofSeconds(10));
        }
    }

    static int liveCount() {
        return LIVE.size();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + (process.isAlive() ? "" : ", exited") + ")";
    }
}
