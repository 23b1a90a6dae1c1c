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
     * State has one asynchronous backup and no synchronous one, as a Redis primary has its replica: a decision is
     * answered as soon as its owner has made it, and its backup, sent at the same moment, is not waited for. Near
     * {@link #EPHEMERAL}'s speed. The loss of a key's owner keeps the budget its backup holds, which lacks only
     * the decisions whose backups had not been applied yet: those of the owner's last moments, about as many as
     * were in flight when it died. The new owner grants those permits again, so a key may admit that many beyond
     * its limit once. The loss of the member holding a backup forgets nothing; losing owner and backup together
     * resets the budget, as it does for {@link #REPLICATED}.
     */
    REPLICATED_ASYNC
}
