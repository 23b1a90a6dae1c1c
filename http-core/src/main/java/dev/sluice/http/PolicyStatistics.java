package dev.sluice.http;

/**
 * What one filter made of one policy's decisions, counted per request the policy applied to.
 *
 * @param granted requests the policy granted from the store's count (permits taken)
 * @param refused requests the policy refused while enforced (each answered 429), including those it was
 *     only asked about after an earlier policy had refused
 * @param shadowRefused requests the policy would have refused and let through, because it or the whole
 *     filter is in shadow mode
 * @param degraded requests its failure mode decided because the store gave no decision in time
 * @param unavailable requests that got no decision at all (failure mode {@code THROW}): 503 when enforced
 * @param skipped requests not charged to the policy because an earlier one had refused them; the policy
 *     was only asked (without taking a permit) and had one
 */
public record PolicyStatistics(long granted, long refused, long shadowRefused, long degraded, long unavailable,
        long skipped) {}
