package dev.sluice.limiter;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The outcome of one acquisition: granted or refused, with what a caller needs to act on it.
 *
 * <p>Closing a granted concurrency lease releases its permits (at most once, asynchronously); closing
 * any other lease does nothing. Leases are safe to close from any thread, any number of times.
 */
public interface Lease extends AutoCloseable {

    /** True if the permits were granted. */
    boolean isAcquired();

    /**
     * Permits still available right after this decision, as the store saw them; 0 for a
     * {@linkplain #isDegraded() degraded} lease, where nothing is known.
     */
    long remaining();

    /** The limit the decision was made against. */
    long limit();

    /**
     * For a refusal, how long until the same request could succeed if no one else asked; empty for a
     * grant, a concurrency refusal (a release can come at any moment) or a degraded decision.
     */
    Optional<Duration> retryAfter();

    /**
     * How long until the limiter is back to its full capacity if no one else asks; zero for a degraded
     * lease, where nothing is known.
     */
    Duration resetAfter();

    /** True if the store could not decide and the limiter's {@link FailureMode} decided instead. */
    boolean isDegraded();

    /**
     * For a granted concurrency lease, its fencing token: it increases monotonically per key, so
     * downstream work can reject a holder whose lease has since expired. Empty otherwise.
     */
    OptionalLong fencingToken();

    /** Releases a granted concurrency lease; a no-op for every other lease. Never throws. */
    @Override
    void close();
}
