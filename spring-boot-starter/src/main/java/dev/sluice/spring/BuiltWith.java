package dev.sluice.spring;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The versions of Hazelcast and Micrometer Sluice was built and tested with, and a start-up warning when the
 * application runs others: Spring Boot's dependency management picks its own (Boot 4.0.7: Hazelcast 5.5.0,
 * Micrometer 1.16.6) unless the build overrides them.
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

    /** Logs {@link #mismatch} of {@code library}, if any. */
    static void check(String library, String running) {
        String warning = mismatch(library, running, version(library));
        if (warning != null) {
            LOG.warn(warning);
        }
    }

    /**
     * A warning when {@code running} and {@code built} differ in major or minor version, else null (also when
     * either is unknown): a patch release is expected to be compatible, another minor one was not tested.
     */
    static String mismatch(String library, String running, String built) {
        if (running == null || built == null || majorMinor(running).equals(majorMinor(built))) {
            return null;
        }
        return "Sluice: this application runs " + library + " " + running + ", Sluice was built and tested with "
                + built + ". Spring Boot's dependency management sets its own version unless the build overrides it"
                + " (with spring-boot-starter-parent: <" + library + ".version>" + built + "</" + library
                + ".version>); see the README's Spring Boot section.";
    }

    private static String majorMinor(String version) {
        String[] parts = version.split("[.-]");
        return parts.length >= 2 ? parts[0] + "." + parts[1] : version;
    }
}
