package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

final class WaitsTest {

    @Test
    void unwrap_futureWrappers_giveTheirCause() {
        IllegalStateException cause = new IllegalStateException("x");
        assertSame(cause, Waits.unwrap(new CompletionException(cause)));
        assertSame(cause, Waits.unwrap(new ExecutionException(cause)));
    }

    /** A subclass of a wrapper (Hazelcast's MemberLeftException is an ExecutionException) is a failure itself. */
    @Test
    void unwrap_subclassOfAWrapper_isKept() {
        ExecutionException own = new ExecutionException("member left", new RuntimeException()) {};
        assertSame(own, Waits.unwrap(own));
    }

    @Test
    void unwrap_wrapperWithoutCause_isKept() {
        CompletionException bare = new CompletionException("no cause", null);
        assertSame(bare, Waits.unwrap(bare));
    }
}
