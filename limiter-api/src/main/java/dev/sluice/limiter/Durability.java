package dev.sluice.limiter;

/** How a distributed backend keeps a limiter's state. Backends without the distinction ignore it. */
public enum Durability {
    /** State has a synchronous backup: an acknowledged decision survives the loss of one member (the default). */
    REPLICATED,
    /** No backup: faster, and the loss of a member resets the budgets it owned. */
    EPHEMERAL
}
