package dev.sluice.it.faults;

import java.time.Duration;

/** Keeps a test's decisions inside one epoch-aligned window, so window rollover cannot blur its counts. */
final class Windows {
    private Windows() {}

    /**
     * Returns at once when the next boundary of epoch-aligned windows of length {@code window} is more than
     * {@code margin} away; otherwise sleeps until just past it. (Members run on this machine, so their
     * cluster time is this clock within milliseconds.)
     */
    static void avoidBoundary(Duration window, Duration margin) {
        long w = window.toMillis();
        long now = System.currentTimeMillis();
        long toBoundary = w - Math.floorMod(now, w);
        if (toBoundary <= margin.toMillis()) {
            System.out.printf("[faults] waiting %d ms for a %s window boundary%n", toBoundary + 200, window);
            MemberProcess.sleep(toBoundary + 200);
        }
    }
}
