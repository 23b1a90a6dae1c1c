package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.LimitSpec;

/**
 * What every backend's processor runs: decode the request, run the pure step at the node's time, and say
 * what to do with the entry ({@link Outcome}). A processor only reads the entry, calls this, and applies
 * the outcome.
 */
public final class StepRunner {
    private StepRunner() {}

    /** One request on a key's state at {@code nowMillis}. */
    public static Outcome run(LimitSpec spec, Op op, long permits, long leaseId, long[] state, long nowMillis) {
        return Outcome.of(Algorithms.step(spec, state, nowMillis, op, permits, leaseId), state);
    }

    /** The request at {@code offset} of encoded {@code requests} ({@link RequestCodec}). */
    public static Outcome run(long[] requests, int offset, long[] state, long nowMillis) {
        return run(RequestCodec.specAt(requests, offset), RequestCodec.opAt(requests, offset),
                RequestCodec.permitsAt(requests, offset), RequestCodec.leaseIdAt(requests, offset), state, nowMillis);
    }

    /**
     * A step's own rejection of its input (bad permits, another algorithm's state): exactly
     * {@link IllegalArgumentException} or {@link IllegalStateException}, not their many subclasses that
     * infrastructure throws for transient trouble (a client offline, an instance shutting down). Such a
     * failure is the caller's to fix: no retry and no failure mode hides it.
     */
    public static boolean isUsageError(Throwable t) {
        return t.getClass() == IllegalArgumentException.class || t.getClass() == IllegalStateException.class;
    }

    /** Where {@link #runAll} hands each request's outcome. */
    public interface Results {
        void verdict(int index, Verdict verdict);

        void failure(int index, RuntimeException failure);
    }

    /**
     * Every request of {@code requests} on one key, in order, at one time: each step runs on the state the
     * previous one left (a state removed, or written with no time left, reads as absent, as it would after
     * a one-request write); a request whose step throws gets its own exception and leaves the state as it
     * was. The returned outcome is the batch's for the entry: written once, with the TTL of the last step
     * that changed it, or kept when the final state is the one the batch started from.
     */
    public static Outcome runAll(long[] requests, long[] state, long nowMillis, Results results) {
        RequestCodec.count(requests); // validates the whole batch before any step runs
        long[] current = state;
        long ttlMillis = 0;
        Verdict last = null;
        for (int i = 0, at = 0; at < requests.length; i++, at = RequestCodec.next(requests, at)) {
            try {
                Verdict v = Algorithms.step(RequestCodec.specAt(requests, at), current, nowMillis,
                        RequestCodec.opAt(requests, at), RequestCodec.permitsAt(requests, at),
                        RequestCodec.leaseIdAt(requests, at));
                if (v.stateChanged(current)) {
                    current = v.ttlMillis() > 0 ? v.state() : null;
                    ttlMillis = v.ttlMillis();
                }
                last = v.withoutState();
                results.verdict(i, last);
            } catch (RuntimeException e) {
                last = null;
                results.failure(i, e);
            }
        }
        if (current == state) {
            return new Outcome(last, Outcome.Action.KEEP, null, 0);
        }
        if (current == null) {
            return new Outcome(last, state == null ? Outcome.Action.KEEP : Outcome.Action.REMOVE, null, 0);
        }
        return new Outcome(last, Outcome.Action.WRITE, current, ttlMillis);
    }

    /**
     * What a backend does after a step: answer {@link #verdict()} to the caller, and {@link #action()} the
     * key's entry. The one rule every backend follows, in one place: a step that left the state it was given
     * changes nothing ({@link Action#KEEP}: a refusal costs no write and no backup); a new state with time
     * left is stored for {@link #ttlMillis()} ({@link Action#WRITE}); a state with no time left, or none, means
     * the entry is gone ({@link Action#REMOVE}, or {@code KEEP} when there was no entry).
     *
     * @param verdict the decision; for a batch ({@link #runAll}), the last request's, or {@code null}
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
}
