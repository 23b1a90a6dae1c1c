/**
 * Sluice on Hazelcast: every decision is one {@code EntryProcessor} run on the partition owner of the
 * limiter's key, for embedded members and clients alike.
 *
 * <p>Start with {@link dev.sluice.hazelcast.SluiceHazelcast#configure(com.hazelcast.config.Config)} on
 * every member (or run {@link dev.sluice.hazelcast.SluiceMember}), then
 * {@link dev.sluice.hazelcast.HazelcastRateLimiters#create(com.hazelcast.core.HazelcastInstance)}.
 */
package dev.sluice.hazelcast;
