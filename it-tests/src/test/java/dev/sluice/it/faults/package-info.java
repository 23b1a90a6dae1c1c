/**
 * Fault tests across real processes: Hazelcast members in separate JVMs ({@link dev.sluice.it.faults.MemberProcess},
 * {@link dev.sluice.it.faults.FaultCluster}), killed with SIGKILL, stopped gracefully, split and merged, while
 * clients in the test JVM keep deciding. Ports 6001-6099.
 */
package dev.sluice.it.faults;
