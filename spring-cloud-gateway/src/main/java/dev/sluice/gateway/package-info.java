/** Sluice in Spring Cloud Gateway: the {@code Sluice} route filter, a {@code RateLimiter} and a {@code KeyResolver}. */
package dev.sluice.gateway;
