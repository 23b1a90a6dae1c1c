package dev.sluice.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.logging.Logger;
import com.hazelcast.version.MemberVersion;

/**
 * The Hazelcast releases Sluice is tested on, and the check that {@link HazelcastRateLimiters#create} makes:
 * this process's Hazelcast and every member's must be one of them, so an untested release fails at once with
 * its version named, rather than deciding wrongly or timing out on every decision. Setting the system
 * property {@value #ALLOW_PROPERTY} to {@code true} turns the failure into a warning, for trying a release
 * before Sluice names it.
 */
final class SupportedVersions {
    /** The oldest and newest supported minor releases of Hazelcast 5. */
    static final int MAJOR = 5;
    static final int OLDEST_MINOR = 3;
    static final int NEWEST_MINOR = 7;
    static final String RANGE = MAJOR + "." + OLDEST_MINOR + " to " + MAJOR + "." + NEWEST_MINOR;
    /** System property: {@code true} lets limiters be created on an unsupported version (with a warning). */
    static final String ALLOW_PROPERTY = "sluice.hazelcast.allowUnsupportedVersion";

    private SupportedVersions() {}

    /**
     * Sluice's code could not link against the running Hazelcast (a class or method it calls is missing): a
     * release Sluice does not support, or a classpath mixing releases. A usage error, never a failure mode's
     * to hide, and not a member's missing Sluice classes ({@link Failures} tells them apart).
     */
    static final class Unlinked extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Unlinked(LinkageError cause) {
            super("Sluice cannot start an invocation on Hazelcast " + HazelcastInternals.localVersion() + " (Sluice"
                    + " supports " + RANGE + "; is more than one Hazelcast jar on the classpath?): " + cause, cause);
        }
    }

    /** Whether {@code major.minor} is in the supported range. */
    static boolean isSupported(int major, int minor) {
        return major == MAJOR && minor >= OLDEST_MINOR && minor <= NEWEST_MINOR;
    }

    /**
     * Whether a version string ({@code "5.5.0"}, {@code "5.6.0-SNAPSHOT"}) is in the range; {@code true}
     * when it cannot be read, since then nothing is known against it.
     */
    static boolean isSupported(String version) {
        if (version == null) {
            return true;
        }
        String[] parts = version.split("[.-]");
        try {
            return parts.length < 2 || isSupported(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        } catch (NumberFormatException e) {
            return true;
        }
    }

    /** Checks this process's own Hazelcast. */
    static void checkLocal(boolean client) {
        check("this " + (client ? "client" : "member"), HazelcastInternals.localVersion());
    }

    /** Refuses {@code version}, run by {@code who}, unless it is supported (or allowed by the property). */
    static void check(String who, String version) {
        if (!isSupported(version)) {
            refuse(who + " runs Hazelcast " + version);
        }
    }

    /** Checks every member known now (a client that has not connected yet knows none). */
    static void checkMembers(HazelcastInstance instance) {
        for (Member member : instance.getCluster().getMembers()) {
            MemberVersion v = member.getVersion();
            if (v != null) {
                check("member " + member.getAddress(), v.toString());
            }
        }
    }

    private static void refuse(String what) {
        String message = "Sluice supports Hazelcast " + RANGE + ", but " + what + "; run a supported Hazelcast,"
                + " or set -D" + ALLOW_PROPERTY + "=true to try it anyway";
        if (Boolean.getBoolean(ALLOW_PROPERTY)) {
            Logger.getLogger(SupportedVersions.class).warning(message + " (allowed by " + ALLOW_PROPERTY + ")");
            return;
        }
        throw new IllegalStateException(message);
    }
}
