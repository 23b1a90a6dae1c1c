package dev.sluice.it.faults;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/** Percentiles of decision latencies, for the reports the fault tests print. */
final class Latencies {
    private Latencies() {}

    /** {@code "n=…, p50=… ms, p99=… ms, max=… ms, >1s=…"} of latencies in nanoseconds. */
    static String summary(long[] nanos) {
        if (nanos.length == 0) {
            return "n=0";
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        long overOneSecond = Arrays.stream(sorted).filter(n -> n > TimeUnit.SECONDS.toNanos(1)).count();
        return String.format("n=%d, p50=%.1f ms, p99=%.1f ms, max=%.1f ms, >1s=%d", sorted.length,
                millis(sorted[sorted.length / 2]), millis(sorted[(int) Math.min(sorted.length - 1, sorted.length * 0.99)]),
                millis(sorted[sorted.length - 1]), overOneSecond);
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }
}
