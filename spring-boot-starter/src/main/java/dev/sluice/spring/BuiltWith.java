package dev.sluice.spring;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The versions of Hazelcast and Micrometer Sluice was built and tested with, the oldest it supports, and a
 * start-up warning when the application runs one outside that range. Spring Boot's dependency management picks
 * its own (Boot 4.0.9: Hazelcast 5.5.0, Micrometer 1.16.8), inside the range, so a Boot application is not
 * warned.
 */
final class BuiltWith {
    private static final Log LOG = LogFactory.getLog(SluiceAutoConfiguration.class);
    private static final Properties VERSIONS = load();

    private BuiltWith() {}

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = BuiltWith.class.getResourceAsStream("sluice-build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    /** The version of {@code library} ({@code hazelcast}, {@code micrometer}) Sluice was built with, or null. */
    static String version(String library) {
        return VERSIONS.getProperty(library + ".version");
    }

    /** The oldest minor release of {@code library} Sluice supports ({@code 1.16}), or null. */
    static String oldest(String library) {
        return VERSIONS.getProperty(library + ".oldest");
    }

    /** Logs {@link #mismatch} of {@code library}, if any. */
    static void check(String library, String running) {
        String warning = mismatch(library, running, oldest(library), version(library));
        if (warning != null) {
            LOG.warn(warning);
        }
    }

    /**
     * A warning when {@code running} is outside the supported minor releases, {@code oldest} to {@code built}'s
     * minor, else null (also when any is unknown): a patch release is expected to be compatible, and a minor
     * release outside the range was not tested.
     */
    static String mismatch(String library, String running, String oldest, String built) {
        if (running == null || built == null) {
            return null;
        }
        int[] r = majorMinor(running);
        int[] newest = majorMinor(built);
        int[] first = oldest == null ? newest : majorMinor(oldest);
        if (r == null || newest == null || first == null
                || (compare(r, first) >= 0 && compare(r, newest) <= 0)) {
            return null;
        }
        String range = first[0] + "." + first[1] + (compare(first, newest) == 0 ? ""
                : " to " + newest[0] + "." + newest[1]);
        return "Sluice: this application runs " + library + " " + running + ", outside the releases Sluice supports ("
                + range + "; built and tested with " + built + "). Spring Boot's dependency management sets its own"
                + " version unless the build overrides it (with spring-boot-starter-parent: <" + library
                + ".version>" + built + "</" + library + ".version>); see the README's Spring Boot section.";
    }

    private static int compare(int[] a, int[] b) {
        return a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]);
    }

    /** The major and minor numbers of a version, or null if it does not start with them. */
    private static int[] majorMinor(String version) {
        String[] parts = version.split("[.-]");
        try {
            return parts.length >= 2 ? new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])} : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
