package dev.sluice.explorer;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A lane: one rate algorithm of the catalogue ({@link AlgorithmDescription#all()}), set to allow the same limit per
 * window as the others ({@link AlgorithmDescription#rateSpec}). Concurrency limits work in flight, not a rate, a
 * composite is a combination of these, and a calendar window's windows are a calendar's days or months, not a
 * length the lanes share (it has no rate form), so none of them is a lane. The lanes are made once, so {@code ==} compares them.
 */
final class Algorithm {
    private static final List<Algorithm> ALL = AlgorithmDescription.all().stream()
            .filter(AlgorithmDescription::hasRateForm).map(Algorithm::new).toList();

    /** The exact one, every other lane's reference. */
    static final Algorithm SLIDING_LOG = named(LimitSpec.SLIDING_LOG);

    private final AlgorithmDescription description;

    private Algorithm(AlgorithmDescription description) {
        this.description = description;
    }

    /** Every lane, in the order of the algorithms' ids. */
    static List<Algorithm> values() {
        return ALL;
    }

    /** The lane of the algorithm settings call {@code name}. */
    static Algorithm named(String name) {
        return ALL.stream().filter(a -> a.description.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no rate algorithm named " + name));
    }

    /** Its place among the lanes. */
    int index() {
        return ALL.indexOf(this);
    }

    /** How its decisions relate to the exact sliding log's. */
    AlgorithmDescription.Accuracy relation() {
        return description.accuracy();
    }

    /** The lane's name, e.g. {@code sliding window (6 segments)}: its label and the values the settings chose. */
    String label(Settings s) {
        StringBuilder label = new StringBuilder(description.label());
        long[] values = description.values(spec(s));
        for (AlgorithmDescription.Parameter p : description.rateChoices()) {
            long value = values[description.parameters().indexOf(p)];
            label.append(" (").append(value).append(' ').append(p.unit().word()).append(')');
        }
        return label.toString();
    }

    LimitSpec spec(Settings s) {
        return description.rateSpec(s.limit(), Duration.ofMillis(s.windowMillis()),
                Map.of("segmentsPerWindow", s.segments()));
    }

    /** The spec as its factory call, e.g. {@code tokenBucket(100, 1, 600ms)}. */
    String factoryCall(Settings s) {
        return description.factoryCall(spec(s), d -> Settings.formatDuration(d.toMillis()));
    }

    @Override
    public String toString() {
        return description.name();
    }
}
