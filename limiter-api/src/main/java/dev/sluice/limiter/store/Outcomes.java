package dev.sluice.limiter.store;

import dev.sluice.limiter.algorithm.Verdict;

/** What one {@link DecisionStore#run} answers: each request's verdict or its own failure, in request order. */
public interface Outcomes {
    /** The number of requests answered. */
    int size();

    /** The verdict of request {@code index}, or {@code null} when it failed. */
    Verdict verdict(int index);

    /** The failure of request {@code index}, or {@code null} when it has a verdict. */
    RuntimeException failure(int index);
}
