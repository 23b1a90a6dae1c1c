/** The Jakarta Servlet filter: an adapter of the servlet API to Sluice's HTTP core. */
module dev.sluice.servlet {
    requires transitive dev.sluice.http;
    requires transitive jakarta.servlet; // provided by the container

    exports dev.sluice.servlet;
}
