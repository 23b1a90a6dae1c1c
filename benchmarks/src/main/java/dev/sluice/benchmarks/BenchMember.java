package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import java.util.Arrays;
import java.util.List;

/**
 * A member JVM for the benchmarks: {@code BenchMember <cluster> <port> <members,comma-separated>}.
 * Prints {@value BenchCluster#READY} once it has joined, then runs until killed.
 */
public final class BenchMember {
    private BenchMember() {}

    public static void main(String[] args) {
        List<String> members = Arrays.stream(args[2].split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        HazelcastInstance member = BenchCluster.member(args[0], Integer.parseInt(args[1]), members);
        BenchCluster.awaitSafe(member, members.size());
        System.out.println(BenchCluster.READY + " " + member.getCluster().getMembers());
        System.out.flush();
    }
}
