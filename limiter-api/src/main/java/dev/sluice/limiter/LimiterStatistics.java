package dev.sluice.limiter;

/**
 * This process's view of one limiter (or of all partitions of a partitioned limiter).
 *
 * @param granted acquisitions granted by the store
 * @param refused acquisitions refused by the store, or refused from the local queue
 * @param degraded decisions made by the failure mode because the store gave none
 * @param queuedPermits permits waiting in the local queue right now
 * @param lastRemaining the remaining permits reported by the latest decision, or -1 before the first
 */
public record LimiterStatistics(long granted, long refused, long degraded, long queuedPermits, long lastRemaining) {}
