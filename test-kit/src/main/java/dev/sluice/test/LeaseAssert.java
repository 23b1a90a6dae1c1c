package dev.sluice.test;

import dev.sluice.limiter.Lease;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Assertions on one decision of a limiter, a {@link Lease}. Each method returns this object, so checks chain;
 * each failure is an {@link AssertionError} naming what was expected and what the lease said. Made by
 * {@link SluiceAssertions#assertThat(Lease)}.
 */
public final class LeaseAssert {
    private final Lease lease;

    LeaseAssert(Lease lease) {
        this.lease = Objects.requireNonNull(lease, "lease");
    }

    /** Checks that the permits were granted. */
    public LeaseAssert isAcquired() {
        if (!lease.isAcquired()) {
            throw failure("to be acquired, but it was refused (retry after "
                    + lease.retryAfter().map(Duration::toString).orElse("unknown") + ")");
        }
        return this;
    }

    /** Checks that the permits were refused. */
    public LeaseAssert isRefused() {
        if (lease.isAcquired()) {
            throw failure("to be refused, but it was acquired (" + lease.remaining() + " remaining)");
        }
        return this;
    }

    /** Checks what the limit had left after this decision. */
    public LeaseAssert hasRemaining(long expected) {
        if (lease.remaining() != expected) {
            throw failure("to have " + expected + " remaining, but it had " + lease.remaining());
        }
        return this;
    }

    /** Checks the exact wait after which the same request could succeed if no one else asked. */
    public LeaseAssert hasRetryAfter(Duration expected) {
        Objects.requireNonNull(expected, "expected");
        Optional<Duration> found = lease.retryAfter();
        if (found.isEmpty() || !found.get().equals(expected)) {
            throw failure("to have retry-after " + expected + ", but it had "
                    + found.map(Duration::toString).orElse("none"));
        }
        return this;
    }

    private AssertionError failure(String expectation) {
        return new AssertionError("Expected the lease " + expectation);
    }
}
