/**
 * The runnable demo: two app instances, each an embedded Hazelcast member plus a Jetty 12 server with
 * {@link dev.sluice.servlet.RateLimitFilter}, sharing one budget per client through the cluster.
 * Start it with {@link dev.sluice.demo.SluiceDemo}; see the module's {@code README.md}.
 */
package dev.sluice.demo;
