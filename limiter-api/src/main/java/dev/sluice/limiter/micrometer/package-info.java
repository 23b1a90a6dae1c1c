/**
 * Micrometer metrics for Sluice limiters. Needs {@code io.micrometer:micrometer-core} on the classpath;
 * nothing else in Sluice does.
 */
package dev.sluice.limiter.micrometer;
