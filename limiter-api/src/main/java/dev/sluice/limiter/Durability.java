package dev.sluice.limiter;

/**
 * How a distributed backend keeps a limiter's state, and so what the loss of one member forgets. Only the
 * Hazelcast backend makes the distinction; the JCache backend keeps state as its cache is configured, and the
 * in-process store has no members to lose, so both ignore it.
 */
public enum Durability {
    /**
     * State has a synchronous backup: a decision is answered only once its backup is written, so an
     * acknowledged decision survives the loss of one member (the default).
     */
    REPLICATED,
    /** No backup: faster, and the loss of a member resets the budgets it owned. */
    EPHEMERAL,
    /**
     * State has an asynchronous backup, as a Redis replica is: a decision is answered as soon as its owner has
     * made it, and its backup follows a moment later. The loss of a member keeps its budgets, less the decisions
     * whose backups had not yet arrived: those of its last moments (the decisions in flight when it died, and
     * for the next few milliseconds before), which the new owner then grants again. Near {@link #EPHEMERAL}'s
     * speed.
     */
    REPLICATED_ASYNC
}
