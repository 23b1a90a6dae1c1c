/**
 * Rate limiting for any HTTP server, without a servlet API: routes, client identity, policies, the
 * {@code RateLimit} headers and problem bodies. The servlet filter and the Spring WebFlux filter are thin
 * adapters over it.
 */
module dev.sluice.http {
    requires transitive dev.sluice.limiter;
    // Only the annotation that lets Spring Boot's configuration processor describe the settings; absent at run time.
    requires static spring.boot;

    exports dev.sluice.http;
}
