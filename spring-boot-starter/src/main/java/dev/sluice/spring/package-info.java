/**
 * Spring Boot 4 auto-configuration for Sluice: {@code sluice.*} properties ({@link dev.sluice.spring.SluiceProperties}),
 * the backend chosen from the context, the servlet and WebFlux filters, {@link dev.sluice.spring.RateLimited}
 * methods, Micrometer metrics, the Actuator endpoint {@code ratelimits} and a health indicator.
 */
package dev.sluice.spring;
