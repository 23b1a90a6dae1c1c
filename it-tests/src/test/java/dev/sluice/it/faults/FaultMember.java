package dev.sluice.it.faults;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The main class of a member JVM: {@code FaultMember <main class> [args...]}. It starts a watchdog and then
 * runs the given main ({@code dev.sluice.hazelcast.SluiceMember}, or Hazelcast's own
 * {@code HazelcastMemberStarter} for a member without Sluice; named by string so that this class loads on
 * a classpath without Sluice).
 *
 * <p>The watchdog reads standard input, a pipe from the test JVM: the line {@code stop} shuts the members
 * of this JVM down gracefully and exits; {@code tcp-ip-add host:port} adds a member to the running members'
 * TCP-IP join list, which their next split-brain check searches (so a test decides when two clusters may
 * find each other); end of input means the test JVM is gone (it closed the pipe, or
 * died, even by SIGKILL), and the JVM halts at once. A member therefore never outlives its test run.
 */
final class FaultMember {
    private FaultMember() {}

    public static void main(String[] args) throws Throwable {
        Thread watchdog = new Thread(FaultMember::watch, "fault-member-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Class.forName(args[0]).getMethod("main", String[].class)
                .invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    }

    private static void watch() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("tcp-ip-add ")) {
                    String member = line.substring("tcp-ip-add ".length()).trim();
                    for (HazelcastInstance instance : Hazelcast.getAllHazelcastInstances()) {
                        instance.getConfig().getNetworkConfig().getJoin().getTcpIpConfig().addMember(member);
                    }
                    System.out.println("fault-member: tcp-ip member " + member + " added");
                } else if (line.trim().equals("stop")) {
                    System.out.println("fault-member: graceful stop requested");
                    Hazelcast.shutdownAll();
                    System.out.println("fault-member: stopped");
                    System.exit(0);
                }
            }
        } catch (IOException | RuntimeException e) {
            System.out.println("fault-member: watchdog failed: " + e);
        }
        System.out.println("fault-member: stdin closed (test JVM gone); halting");
        System.out.flush();
        Runtime.getRuntime().halt(3);
    }
}
