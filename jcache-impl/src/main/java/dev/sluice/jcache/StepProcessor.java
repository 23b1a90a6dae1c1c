package dev.sluice.jcache;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.SpecCodec;
import dev.sluice.limiter.spi.StepRequest;
import dev.sluice.limiter.algorithm.Verdict;
import java.io.Serializable;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * One decision as a portable entry processor: reads the entry, runs the shared pure step with the clock
 * of the node running it, writes the new state (or removes the entry) only when the step changed it, and
 * returns the decision as {@value #VERDICT_WORDS} longs.
 *
 * <p>Everything it carries is primitive (the spec encoded by {@link SpecCodec}), and its result is a
 * {@code long[]}, which every provider copies or serializes cheaply; {@link Verdict} is not
 * {@code Serializable}, so it never crosses the provider. The decoded spec is cached in a transient field,
 * so an in-process provider that never serializes the processor never decodes it either.
 *
 * <p>The state's own timestamps decide staleness (the step treats state past its expiry word as absent);
 * the cache's expiry policy only collects garbage. A processor instance is used for one invocation.
 */
final class StepProcessor implements EntryProcessor<String, long[], long[]>, Serializable {
    private static final long serialVersionUID = 1L;

    static final int VERDICT_WORDS = 6;

    private final long algorithm;
    private final long p1;
    private final long p2;
    private final long p3;
    private final int op;
    private final long permits;
    private final long leaseId;
    private final String clockName;
    private transient LimitSpec spec;

    StepProcessor(StepRequest request, String clockName) {
        long[] words = SpecCodec.encode(request.spec());
        this.algorithm = words[0];
        this.p1 = words[1];
        this.p2 = words[2];
        this.p3 = words[3];
        this.op = request.op().id();
        this.permits = request.permits();
        this.leaseId = request.leaseId();
        this.clockName = clockName;
        this.spec = request.spec();
    }

    @Override
    public long[] process(MutableEntry<String, long[]> entry, Object... arguments) {
        LimitSpec s = spec;
        if (s == null) {
            s = SpecCodec.decode(algorithm, p1, p2, p3);
            spec = s;
        }
        long[] state = entry.exists() ? entry.getValue() : null;
        Verdict v = Algorithms.step(s, state, ProcessorClocks.millis(clockName), Op.ofId(op), permits, leaseId);
        if (v.stateChanged(state)) {
            if (v.state() == null || v.ttlMillis() <= 0) {
                if (state != null) {
                    entry.remove();
                }
            } else {
                entry.setValue(v.state());
            }
        }
        return new long[] {v.granted() ? 1 : 0, v.remaining(), v.limit(), v.retryAfterMillis(),
                v.resetAfterMillis(), v.token()};
    }

    /** The decision a processor returned. */
    static Verdict verdictOf(long[] words) {
        if (words == null || words.length != VERDICT_WORDS) {
            throw new IllegalStateException("the cache's invoke returned " + (words == null ? "null" : words.length
                    + " words") + " instead of a Sluice verdict; is the provider JSR-107 compliant?");
        }
        return Verdict.of(words[0] == 1, words[1], words[2], words[3], words[4], words[5]);
    }
}
