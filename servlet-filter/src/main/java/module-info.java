/** The Jakarta Servlet filter: policies, client identity, 429 and the standard rate-limit headers. */
module dev.sluice.servlet {
    requires transitive dev.sluice.limiter;
    requires transitive jakarta.servlet; // provided by the container

    exports dev.sluice.servlet;
}
