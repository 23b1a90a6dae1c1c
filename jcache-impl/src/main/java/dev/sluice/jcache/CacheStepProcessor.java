package dev.sluice.jcache;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepRunner.Outcome;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.store.StepOutcomes;
import dev.sluice.limiter.store.StepRequest;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * The requests of one call as a portable entry processor: reads the entry, runs every request
 * ({@link RequestCodec} words, in order) with {@link StepRunner#runAll} at the clock of the node running it,
 * applies the batch's {@link Outcome} once (write the final state, remove the entry, or leave it), and returns
 * each request's outcome ({@link StepOutcomes}: a step's own failure answers that request alone).
 *
 * <p>What it carries is a {@code long[]} and what it returns serializes to {@code long[]}s and strings, which
 * every provider copies or serializes cheaply. The state's own timestamps decide staleness (the step treats
 * state past its expiry word as absent); the cache's expiry policy only collects garbage. A processor instance
 * is used for one invocation.
 */
final class CacheStepProcessor implements EntryProcessor<String, long[], StepOutcomes>, Serializable {
    private static final long serialVersionUID = 3L;

    private final long[] requests;
    private final String clockName;

    CacheStepProcessor(List<StepRequest> requests, String clockName) {
        List<long[]> encoded = new ArrayList<>(requests.size());
        for (StepRequest r : requests) {
            encoded.add(RequestCodec.encode(r.spec(), r.op(), r.permits(), r.leaseId()));
        }
        this.requests = encoded.size() == 1 ? encoded.get(0) : RequestCodec.concat(encoded);
        this.clockName = clockName;
    }

    @Override
    public StepOutcomes process(MutableEntry<String, long[]> entry, Object... arguments) {
        long[] state = entry.exists() ? entry.getValue() : null;
        StepOutcomes outcomes = new StepOutcomes(RequestCodec.count(requests));
        Outcome o = StepRunner.runAll(requests, state, ProcessorClocks.millis(clockName), outcomes);
        switch (o.action()) {
            case WRITE -> entry.setValue(o.state());
            case REMOVE -> entry.remove();
            case KEEP -> { }
        }
        return outcomes;
    }

    /** The spec of the first request, rebuilt from its wire form (tests). */
    LimitSpec spec() {
        return RequestCodec.specAt(requests, 0);
    }
}
