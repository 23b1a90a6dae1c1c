package dev.sluice.limiter.store;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The one rule for reading the failure a future reports. */
public final class FutureFailures {
    private FutureFailures() {}

    /**
     * The failure inside the wrappers futures add: the cause of exactly a {@link CompletionException} or an
     * {@link ExecutionException}, however deep, not of their subclasses, which are failures of their own
     * (Hazelcast's {@code MemberLeftException} is an {@code ExecutionException}); {@code failure} itself otherwise.
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t.getClass() == CompletionException.class || t.getClass() == ExecutionException.class)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
