package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.ceilDiv;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;

/**
 * Generic cell rate algorithm. The emission interval is {@code T = period / rate}; a request of
 * {@code n} permits is allowed when the theoretical arrival time after it, {@code max(tat, now) + n*T},
 * is at most {@code burst * T} ahead of now. State: the theoretical arrival time as whole milliseconds
 * plus a remainder in units of {@code 1/rate} ms, so a rate that does not divide the period is kept
 * exactly, with no rounding drift.
 */
public final class GcraStep implements Algorithm {
    /** Its state id. */
    static final int ID = 6;
    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.GCRA, LimitSpec.Gcra.class)
            .label("GCRA")
            .summary("emission interval period / permitsPerPeriod, tolerance burst; one word of state, exact"
                    + " retry-after")
            .parameters(Parameters.permitLimit("permitsPerPeriod", "permits per period", LimitSpec.MAX_LIMIT),
                    AlgorithmDescription.Parameter.duration("period", "window", Duration.ofMillis(1),
                            LimitSpec.MAX_DURATION, "the period the rate is given over"),
                    AlgorithmDescription.Parameter.count("burst", "burst", AlgorithmDescription.Unit.PERMITS, 1,
                            LimitSpec.MAX_LIMIT, "permits that may be taken at once"))
            .factory(v -> new LimitSpec.Gcra(v[0], v[1], v[2]),
                    s -> new long[] {s.permitsPerPeriod(), s.periodMillis(), s.burst()})
            .rate(AlgorithmDescription.Accuracy.OTHER_RULE, (limit, window, choice) -> new long[] {limit, window, limit})
            .build();

    private static final int TAT_MILLIS = HEADER_WORDS;
    private static final int TAT_FRACTION = HEADER_WORDS + 1;

    /** For the service loader. */
    public GcraStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        return step((LimitSpec.Gcra) spec, state, now, permits);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        return refund((LimitSpec.Gcra) spec, state, now, permits, at);
    }

    @Override
    public boolean isWellFormed(long[] state) {
        return state.length == HEADER_WORDS + 2;
    }

    /** {@code [header, lastNow, expiresAt, tatMillis, tatFraction]}: the later arrival time. */
    @Override
    public long[] merge(long[] a, long[] b) {
        int tat = HEADER_WORDS;
        int fraction = HEADER_WORDS + 1;
        boolean aLater = a[tat] > b[tat] || (a[tat] == b[tat] && a[fraction] >= b[fraction]);
        return StateMerge.withTimes(aLater ? a : b, a, b);
    }

    static Verdict step(LimitSpec.Gcra spec, long[] state, long now, long permits) {
        long rate = spec.permitsPerPeriod();
        long period = spec.periodMillis();
        long tolerance = spec.burst() * period; // burst * T, in units of 1/rate ms
        long tatMillis = now;
        long tatFraction = 0;
        if (state != null && state[TAT_MILLIS] >= now) {
            tatMillis = state[TAT_MILLIS];
            // The fraction is in units of 1/rate ms of the rate it was written with; under a changed rate it
            // is kept below one millisecond, so a live change shifts the arrival time by less than 1 ms.
            tatFraction = Math.min(state[TAT_FRACTION], rate - 1);
        }
        long ahead = (tatMillis - now) * rate + tatFraction; // (tat - now), in units of 1/rate ms
        long resetAfter = ceilDiv(ahead, rate);
        long asked = Math.max(permits, 1);
        long total = tatFraction + asked * period;
        long nextMillis = tatMillis + total / rate;
        long nextFraction = total % rate;
        long nextAhead = (nextMillis - now) * rate + nextFraction;
        if (nextAhead <= tolerance) {
            if (permits == 0) {
                return Verdict.granted((tolerance - ahead) / period, spec.burst(), resetAfter, 0, resetAfter, state);
            }
            long ttl = nextMillis - now + (nextFraction > 0 ? 1 : 0);
            long[] updated = {header(ID, 0), now, now + ttl, nextMillis, nextFraction};
            return Verdict.granted((tolerance - nextAhead) / period, spec.burst(), ttl, now, ttl, updated);
        }
        long retryAfter = ceilDiv(nextAhead - tolerance, rate);
        return Verdict.refused(Math.max(0, (tolerance - ahead) / period), spec.burst(), retryAfter, resetAfter,
                resetAfter, state);
    }

    /**
     * Moves the theoretical arrival time back by the grant's emission intervals, less the time since the
     * grant: an arrival time that fell behind the clock meanwhile would, without the grant, have been
     * pulled up to it, so that much is already made good. Exact when the refund follows at once.
     */
    static long[] refund(LimitSpec.Gcra spec, long[] state, long now, long permits, long at) {
        long rate = spec.permitsPerPeriod();
        long period = spec.periodMillis();
        if (state[TAT_MILLIS] < now) {
            return state; // the arrival time is behind the clock: nothing of the grant is held any more
        }
        long ahead = (state[TAT_MILLIS] - now) * rate + Math.min(state[TAT_FRACTION], rate - 1);
        long elapsed = now - at;
        long owed = permits * period; // in units of 1/rate ms
        long give = elapsed >= ceilDiv(owed, rate) ? 0 : owed - elapsed * rate;
        if (give == 0) {
            return state;
        }
        long left = Math.max(0, ahead - give);
        long tatMillis = now + left / rate;
        long tatFraction = left % rate;
        long ttl = tatMillis - now + (tatFraction > 0 ? 1 : 0);
        return new long[] {header(ID, 0), now, now + ttl, tatMillis, tatFraction};
    }
}
