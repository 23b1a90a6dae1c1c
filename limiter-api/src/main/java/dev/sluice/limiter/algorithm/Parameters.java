package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.AlgorithmDescription.Parameter;
import dev.sluice.limiter.AlgorithmDescription.Unit;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;

/** The parameters several algorithms share, so each is written once. */
final class Parameters {
    /** A window from 1 ms to {@link LimitSpec#MAX_DURATION}. */
    static final Parameter WINDOW = Parameter.duration("window", "window", Duration.ofMillis(1), LimitSpec.MAX_DURATION,
            "the window's length");

    private Parameters() {}

    /** The limit, named {@code permitLimit}, set as {@code permit-limit}. */
    static Parameter permitLimit(String summary, long max) {
        return permitLimit("permitLimit", summary, max);
    }

    /** The limit under an algorithm's own name, still set as {@code permit-limit}, as every algorithm's limit is. */
    static Parameter permitLimit(String name, String summary, long max) {
        return Parameter.count(name, "permit-limit", Unit.PERMITS, 1, max, summary);
    }
}
