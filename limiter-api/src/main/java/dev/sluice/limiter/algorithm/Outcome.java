package dev.sluice.limiter.algorithm;

/**
 * What a backend does after a step: answer {@link #verdict()} to the caller, and {@link #action()} the
 * key's entry. The one rule every backend follows, in one place: a step that left the state it was given
 * changes nothing ({@link Action#KEEP}: a refusal costs no write and no backup); a new state with time
 * left is stored for {@link #ttlMillis()} ({@link Action#WRITE}); a state with no time left, or none, means
 * the entry is gone ({@link Action#REMOVE}, or {@code KEEP} when there was no entry).
 *
 * @param verdict the decision; for a batch ({@link StepRunner#runAll}), the last request's, or {@code null}
 *     when it failed
 * @param action what to do with the entry
 * @param state for {@link Action#WRITE}, the state to store; otherwise {@code null}
 * @param ttlMillis for {@link Action#WRITE}, how long the state matters (positive); otherwise 0
 */
public record Outcome(Verdict verdict, Action action, long[] state, long ttlMillis) {

    /** What to do with a key's entry. */
    public enum Action {
        /** Leave the entry as it is. */
        KEEP,
        /** Store {@link #state()} with a time to live of {@link #ttlMillis()}. */
        WRITE,
        /** Delete the entry. */
        REMOVE
    }

    /** The outcome of a step that turned {@code before} into {@code v.state()}. */
    static Outcome of(Verdict v, long[] before) {
        Action action = after(v, before);
        return action == Action.WRITE ? new Outcome(v.withoutState(), action, v.state(), v.ttlMillis())
                : new Outcome(v.withoutState(), action, null, 0);
    }

    static Action after(Verdict v, long[] before) {
        if (!v.stateChanged(before)) {
            return Action.KEEP;
        }
        if (v.state() != null && v.ttlMillis() > 0) {
            return Action.WRITE;
        }
        return before == null ? Action.KEEP : Action.REMOVE;
    }

    /** True when the entry must be written or removed. */
    public boolean changes() {
        return action != Action.KEEP;
    }
}
