package dev.sluice.limiter.store;

import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.SpecCodec;
import dev.sluice.limiter.algorithm.Verdict;
import java.util.concurrent.CompletableFuture;

/**
 * One caller's decision on its way through the {@link Coalescer}, and the future that caller holds: the
 * future is the pending request itself, so a decision costs no second object for it. Completed, once, by
 * the invocation that carried it, or failed before it was sent (a full queue, a deadline passed);
 * cancelled by a caller that gave up, which drops it if it is still queued.
 */
final class Pending extends CompletableFuture<Verdict> {
    /** Rough wire size of a one-spec request besides its key: its words and framing (a composite's is more). */
    static final int REQUEST_BYTES = (RequestCodec.FIXED_WORDS + SpecCodec.WORDS) * 8 + 16;

    final StepRequest request;
    /** When the caller stops waiting: a {@link System#nanoTime()} reading, or {@link Long#MAX_VALUE}. */
    final long deadline;
    /**
     * Set, and read, on the blocking caller's own thread when its request is sent alone from there: the
     * call it waits on itself, and the hop it ends when that returns. Otherwise {@code null}.
     */
    CompletableFuture<? extends Outcomes> direct;
    Lanes.Hop hop;

    Pending(StepRequest request, long deadline) {
        this.request = request;
        this.deadline = deadline;
    }

    /** About the payload this request adds to a hop. */
    int bytes() {
        return REQUEST_BYTES + request.key().length() * 3;
    }
}
