package dev.sluice.it.faults;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Kills every member JVM still running after a test class, whatever the test did: the backstop behind
 * {@link FaultCluster#close()}. (A JVM shutdown hook and each member's stdin watchdog cover a test JVM that
 * dies without running it.)
 */
final class Reaper implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
        int left = MemberProcess.liveCount();
        if (left > 0) {
            System.out.println("[faults] " + context.getDisplayName() + " left " + left + " member JVMs running; killing them");
        }
        MemberProcess.killAll();
    }
}
