/**
 * Sluice on Hazelcast: entry processors around the shared step runner, their serialization, the config
 * helper and the member launcher. Hazelcast instantiates the serialization factory and the merge policy by
 * name, so the package is exported.
 */
@SuppressWarnings("requires-transitive-automatic") // Hazelcast 5.7 is an automatic module with a stable name
module dev.sluice.hazelcast {
    requires transitive dev.sluice.limiter;
    requires transitive com.hazelcast.core; // its types are in this module's API

    exports dev.sluice.hazelcast;
}
