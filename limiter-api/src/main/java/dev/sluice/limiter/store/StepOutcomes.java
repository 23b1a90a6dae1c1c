package dev.sluice.limiter.store;

import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.util.List;
import java.util.function.Function;

/**
 * {@link Outcomes} filled by {@link StepRunner#runAll}, and the one rule for how a failure travels from where the
 * step ran back to the caller ({@link #kindOf}, {@link #failureOf}): a step's usage error as exactly
 * {@link IllegalArgumentException} or {@link IllegalStateException} with its message, a capacity refusal as
 * {@link CapacityExceededException}, anything else as a failure of the store. Serializable, for a store whose
 * processor runs in another process (a remote JCache provider); in one process the thrown exceptions themselves
 * are kept.
 */
public final class StepOutcomes implements Outcomes, StepRunner.Results, Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    public static final byte VERDICT = 0;
    public static final byte ILLEGAL_ARGUMENT = 1;
    public static final byte ILLEGAL_STATE = 2;
    public static final byte OTHER_FAILURE = 3;
    public static final byte CAPACITY = 4;

    private transient Verdict[] verdicts;
    /** Null while every request has a verdict. */
    private byte[] kinds;
    private String[] messages;
    private transient RuntimeException[] thrown;

    /** Room for {@code size} outcomes. */
    public StepOutcomes(int size) {
        this.verdicts = new Verdict[size];
    }

    /** The answer of one request. */
    public static StepOutcomes of(Verdict verdict) {
        StepOutcomes outcomes = new StepOutcomes(1);
        outcomes.verdict(0, verdict);
        return outcomes;
    }

    /**
     * The outcomes of {@code requests} decided one at a time by {@code step}, for a store that runs each request as
     * a step of its own: a request whose step throws is answered with that failure, and the others still run.
     */
    public static StepOutcomes ofEach(List<StepRequest> requests, Function<StepRequest, Verdict> step) {
        StepOutcomes outcomes = new StepOutcomes(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            try {
                outcomes.verdict(i, step.apply(requests.get(i)));
            } catch (RuntimeException e) {
                outcomes.failure(i, e);
            }
        }
        return outcomes;
    }

    /** How {@code e} travels: one of the kinds above. */
    public static byte kindOf(RuntimeException e) {
        return e.getClass() == IllegalArgumentException.class ? ILLEGAL_ARGUMENT
                : e.getClass() == IllegalStateException.class ? ILLEGAL_STATE
                : e instanceof CapacityExceededException ? CAPACITY : OTHER_FAILURE;
    }

    /** What travels as {@code e}'s message: the whole exception for a failure of the store, else its message. */
    public static String messageOf(RuntimeException e, byte kind) {
        return kind == OTHER_FAILURE ? String.valueOf(e) : e.getMessage();
    }

    /** The failure rebuilt from its kind and message; {@code null} for {@link #VERDICT}. */
    public static RuntimeException failureOf(byte kind, String message) {
        return switch (kind) {
            case VERDICT -> null;
            case ILLEGAL_ARGUMENT -> new IllegalArgumentException(message);
            case ILLEGAL_STATE -> new IllegalStateException(message);
            case CAPACITY -> new CapacityExceededException(message);
            default -> new StoreFailureException("the decision failed where the key lives: " + message);
        };
    }

    /** A failure of the store where the step ran, rebuilt in the caller's process. */
    public static final class StoreFailureException extends RuntimeException {
        @Serial
        private static final long serialVersionUID = 1L;

        StoreFailureException(String message) {
            super(message);
        }
    }

    @Override
    public void verdict(int index, Verdict verdict) {
        verdicts[index] = verdict.withoutState();
    }

    @Override
    public void failure(int index, RuntimeException failure) {
        byte kind = kindOf(failure);
        failure(index, kind, messageOf(failure, kind));
        thrown[index] = failure;
    }

    /** Request {@code index} failed, as a failure of {@code kind} with {@code message} (read from a wire form). */
    public void failure(int index, byte kind, String message) {
        if (kinds == null) {
            kinds = new byte[verdicts.length];
            messages = new String[verdicts.length];
            thrown = new RuntimeException[verdicts.length];
        }
        kinds[index] = kind;
        messages[index] = message;
        verdicts[index] = null;
    }

    /** How request {@code index} is answered: {@link #VERDICT} or the kind of its failure. */
    public byte kind(int index) {
        return kinds == null ? VERDICT : kinds[index];
    }

    /** The message of request {@code index}'s failure, or {@code null} when it has a verdict. */
    public String message(int index) {
        return kinds == null ? null : messages[index];
    }

    /** Every request failed with {@code e}: none of them was applied. */
    public void failAll(RuntimeException e) {
        for (int i = 0; i < verdicts.length; i++) {
            failure(i, e);
        }
    }

    @Override
    public int size() {
        return verdicts.length;
    }

    @Override
    public Verdict verdict(int index) {
        return verdicts[index];
    }

    @Override
    public RuntimeException failure(int index) {
        if (kinds == null || kinds[index] == VERDICT) {
            return null;
        }
        return thrown != null && thrown[index] != null ? thrown[index] : failureOf(kinds[index], messages[index]);
    }

    @Serial
    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        out.writeInt(verdicts.length);
        for (Verdict v : verdicts) {
            out.writeObject(v == null ? null : v.toWords());
        }
    }

    @Serial
    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        int size = in.readInt();
        if (size < 0 || size > dev.sluice.limiter.Coalescing.MAX_BATCH_REQUESTS) {
            throw new IOException("outcomes of " + size + " requests are out of range");
        }
        verdicts = new Verdict[size];
        for (int i = 0; i < size; i++) {
            long[] words = (long[]) in.readObject();
            verdicts[i] = words == null ? null : Verdict.fromWords(words);
        }
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("Outcomes[");
        for (int i = 0; i < verdicts.length; i++) {
            s.append(i == 0 ? "" : ", ").append(verdicts[i] != null ? verdicts[i] : failure(i));
        }
        return s.append(']').toString();
    }
}
