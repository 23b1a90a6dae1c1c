package dev.sluice.limiter.algorithm;

/** What a step does. Ids are stable: they travel over the wire. */
public enum Op {
    /** Take permits (or probe, with 0 permits). */
    ACQUIRE(0),
    /** Extend a live concurrency lease; an expired lease is not recreated. */
    RENEW(1),
    /** Return a concurrency lease's permits. */
    RELEASE(2),
    /**
     * Give back a rate grant's permits (a chain whose later link refused): the lease id carries the time of
     * the grant, its verdict's token. Each algorithm undoes exactly what that grant can still be holding. The
     * permits word may carry a refund id ({@link Algorithms#refundPermits}), which the state remembers so that
     * the same refund run again gives nothing back twice.
     */
    REFUND(3),
    /**
     * Delete the key's state if this spec cannot read it (another algorithm, another shape, not Sluice state);
     * leave readable state alone. For {@code LimiterOptions.replaceForeignState}.
     */
    REPLACE_FOREIGN(4),
    /**
     * Read the key's state as an acquisition of one permit would see it, consuming nothing and writing nothing
     * ({@link Inspection#inspect}).
     */
    INSPECT(5),
    /**
     * Set the key's state to what a fresh key holds with the permits word's remaining left
     * ({@link Inspection#reset}): a full budget removes the state.
     */
    RESET(6),
    /**
     * Charge a rate grant's cost found after the work beyond what it reserved ({@link Debt}): the permits word
     * carries the extra permits, and may carry a settlement id ({@link Algorithms#refundPermits}) that the state
     * remembers as it remembers a refund's, so the same charge run again charges nothing twice. The budget pays
     * what it holds now; the rest becomes the key's debt, repaid before any later grant. The verdict is granted
     * when the budget paid it all, and its token is the debt the key owes after it.
     */
    CHARGE(7);

    private static final Op[] BY_ID = {ACQUIRE, RENEW, RELEASE, REFUND, REPLACE_FOREIGN, INSPECT, RESET, CHARGE};
    private final int id;

    Op(int id) { this.id = id; }

    public int id() { return id; }

    /**
     * Whether a request of a key without state of its own may be placed on an overflow cell
     * ({@link Overflow#place}): acquisitions and probes, and the read and reset of a key, which answer for the
     * state that decides it.
     */
    public boolean isPlaced() {
        return this == ACQUIRE || this == INSPECT || this == RESET;
    }

    public static Op ofId(int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw new IllegalArgumentException("op id must be between 0 and " + (BY_ID.length - 1) + ", was " + id);
        }
        return BY_ID[id];
    }
}
