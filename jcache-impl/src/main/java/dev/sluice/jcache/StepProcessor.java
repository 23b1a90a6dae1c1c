package dev.sluice.jcache;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Outcome;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.spi.StepRequest;
import java.io.Serializable;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * One decision as a portable entry processor: reads the entry, runs the request ({@link RequestCodec}
 * words) with {@link StepRunner} at the clock of the node running it, applies the {@link Outcome} (write
 * the new state, remove the entry, or leave it), and returns the decision as {@link Verdict#toWords()}.
 *
 * <p>Everything it carries and returns is a {@code long[]}, which every provider copies or serializes
 * cheaply; {@link Verdict} is not {@code Serializable}, so it never crosses the provider. The decoded spec
 * is cached in a transient field, so an in-process provider that never serializes the processor never
 * decodes it either.
 *
 * <p>The state's own timestamps decide staleness (the step treats state past its expiry word as absent);
 * the cache's expiry policy only collects garbage. A processor instance is used for one invocation.
 */
final class StepProcessor implements EntryProcessor<String, long[], long[]>, Serializable {
    private static final long serialVersionUID = 2L;

    private final long[] request;
    private final String clockName;
    private transient LimitSpec spec;

    StepProcessor(StepRequest request, String clockName) {
        this.request = RequestCodec.encode(request.spec(), request.op(), request.permits(), request.leaseId());
        this.clockName = clockName;
        this.spec = request.spec();
    }

    @Override
    public long[] process(MutableEntry<String, long[]> entry, Object... arguments) {
        LimitSpec s = spec;
        if (s == null) {
            s = RequestCodec.specAt(request, 0);
            spec = s;
        }
        long[] state = entry.exists() ? entry.getValue() : null;
        Outcome o = StepRunner.run(s, RequestCodec.opAt(request, 0), RequestCodec.permitsAt(request, 0),
                RequestCodec.leaseIdAt(request, 0), state, ProcessorClocks.millis(clockName));
        switch (o.action()) {
            case WRITE -> entry.setValue(o.state());
            case REMOVE -> entry.remove();
            case KEEP -> { }
        }
        return o.verdict().toWords();
    }

    /** The decision a processor returned. */
    static Verdict verdictOf(long[] words) {
        if (words == null || words.length != Verdict.WORDS) {
            throw new IllegalStateException("the cache's invoke returned " + (words == null ? "null" : words.length
                    + " words") + " instead of a Sluice verdict; is the provider JSR-107 compliant?");
        }
        return Verdict.fromWords(words);
    }
}
