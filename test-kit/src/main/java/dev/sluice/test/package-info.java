/**
 * Testing code that uses Sluice: {@link dev.sluice.test.SluiceExtension} gives a JUnit 5 test an in-process store
 * on a {@link dev.sluice.limiter.local.ManualClock} it advances, and {@link dev.sluice.test.SluiceAssertions}
 * checks leases and HTTP answers ({@code 429}, {@code Retry-After}, the {@code RateLimit} fields).
 */
package dev.sluice.test;
