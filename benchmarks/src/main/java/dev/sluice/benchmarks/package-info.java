/**
 * JMH benchmarks of Sluice beside its peers on the same topology and workload: Bucket4j on Hazelcast,
 * a raw counting entry processor (the floor of one Hazelcast hop), Sluice's in-process backend (the
 * ceiling) and Redis with a Lua script. {@link dev.sluice.benchmarks.BenchmarkMain} runs the whole
 * comparison and writes a markdown report.
 */
package dev.sluice.benchmarks;
