package dev.sluice.limiter.runtime;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.AlgorithmDescription.Parameter;
import dev.sluice.limiter.LimitSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * One replica's share of a spec while the store is away ({@link dev.sluice.limiter.FailureMode#LOCAL}): the spec
 * with every parameter whose unit is {@linkplain AlgorithmDescription.Unit#PERMITS permits} divided by the number of
 * replicas, rounded down; durations and segments unchanged; a composite's components each so. A share in which a
 * permits parameter rounds to 0 is no spec: that replica refuses everything.
 *
 * <p>Why this bounds the total: each permits parameter of every replica's share is at most {@code p / n}, so the
 * shares of {@code n} replicas add up to at most {@code p} for each of them (a window's limit, a bucket's size and
 * refill, a GCRA rate and burst, a concurrency limit), and rounding down and refusing at 0 only take away. The rule
 * reads the parameters' units from {@link AlgorithmDescription}, so an algorithm added later is scaled without a
 * line here.
 */
final class LocalShare {
    private LocalShare() {}

    /**
     * {@code spec} scaled for one of {@code replicas}, or {@code null} when a permits parameter rounds to 0 (or the
     * scaled values break a rule across the spec's parameters: refusing is the safe side).
     *
     * @throws IllegalArgumentException if {@code replicas} is below 1
     */
    static LimitSpec of(LimitSpec spec, int replicas) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1, was " + replicas);
        }
        if (replicas == 1) {
            return spec;
        }
        if (spec instanceof LimitSpec.AllOf composite) {
            List<LimitSpec> components = new ArrayList<>(composite.components().size());
            for (LimitSpec component : composite.components()) {
                LimitSpec share = of(component, replicas);
                if (share == null) {
                    return null;
                }
                components.add(share);
            }
            return LimitSpec.allOf(components.toArray(LimitSpec[]::new));
        }
        AlgorithmDescription description = AlgorithmDescription.of(spec);
        List<Parameter> parameters = description.parameters();
        long[] values = description.values(spec);
        for (int i = 0; i < values.length; i++) {
            if (parameters.get(i).unit() == AlgorithmDescription.Unit.PERMITS) {
                values[i] /= replicas;
                if (values[i] == 0) {
                    return null;
                }
            }
        }
        try {
            return description.spec(values);
        } catch (IllegalArgumentException brokenRule) {
            return null;
        }
    }
}
