/**
 * Fault tests across real processes: Hazelcast members in separate JVMs ({@link dev.sluice.it.faults.MemberProcess},
 * {@link dev.sluice.it.faults.FaultCluster}), killed with SIGKILL, stopped gracefully, split and merged, while
 * clients in the test JVM keep deciding. Every member listens on a port the system reported free.
 */
package dev.sluice.it.faults;
