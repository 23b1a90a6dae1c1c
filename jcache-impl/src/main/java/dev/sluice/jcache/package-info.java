/**
 * Sluice on any JSR-107 (JCache) provider: each decision runs as one {@code Cache.invoke} of a portable,
 * {@code Serializable} entry processor, which the specification makes atomic per key.
 *
 * <p>Start with {@link dev.sluice.jcache.JCacheRateLimiters}; {@link dev.sluice.jcache.ProcessorClocks}
 * is a testing hook that lets processors read a fake clock.
 */
package dev.sluice.jcache;
