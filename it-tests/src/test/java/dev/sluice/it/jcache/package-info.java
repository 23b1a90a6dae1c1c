/** The contract suite on JCache providers (Caffeine, Ehcache, Hazelcast members) and the JCache store's own tests. */
package dev.sluice.it.jcache;
