package dev.sluice.it.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every Java block of the README and of the pages under {@code docs/} compiles as it stands; those marked
 * {@code <!-- run -->} also run, and those marked {@code <!-- from <file> -->} are that file's text, compiled by
 * its own module. Each test is named by its file and line.
 */
final class ReadmeSnippetsTest {

    @TestFactory
    Stream<DynamicTest> everyJavaBlock_compilesAndMarkedOnesRun() throws Exception {
        List<Readme.Snippet> snippets = Readme.snippets();
        assertTrue(snippets.size() >= 6, "found " + snippets.size() + " Java blocks in the README and docs/");
        assertTrue(snippets.stream().anyMatch(s -> s.file().startsWith("docs/")), "no Java block under docs/");
        return snippets.stream().map(snippet -> DynamicTest.dynamicTest(snippet.toString(), () -> {
            if (snippet.marker().startsWith(Readme.QUOTED)) {
                Readme.checkQuote(snippet);
                return;
            }
            Class<?> compiled = Readme.compile(snippet);
            if (snippet.marker().equals("run")) {
                Readme.run(snippet, compiled);
            }
        }));
    }

    /** The documents' coordinates are the ones the build pins: a version bump cannot leave the docs behind. */
    @Test
    void coordinates_inTheReadme_matchThePinnedVersions() throws Exception {
        String pom = Files.readString(Path.of("..", "pom.xml"));
        Map<String, String> property = Map.of(
                "com.hazelcast:hazelcast", "hazelcast.version",
                "javax.cache:cache-api", "cache-api.version",
                "com.github.ben-manes.caffeine:jcache", "caffeine-jcache.version",
                "com.github.ben-manes.caffeine:caffeine", "caffeine.version",
                "org.ehcache:ehcache", "ehcache.version",
                "jakarta.servlet:jakarta.servlet-api", "servlet-api.version",
                "org.eclipse.jetty.ee10:jetty-ee10-servlet", "jetty.version",
                "io.micrometer:micrometer-core", "micrometer.version");
        Matcher m = Pattern.compile("`([a-z0-9.\\-]+:[a-z0-9.\\-]+):([0-9][A-Za-z0-9.\\-]*)`").matcher(Readme.text());
        List<String> checked = new ArrayList<>();
        while (m.find()) {
            String name = property.get(m.group(1));
            assertTrue(name != null, "the documents name " + m.group(1) + ", which this test does not know; add it");
            Matcher pinned = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(pom);
            assertTrue(pinned.find(), name + " is not pinned in pom.xml");
            assertEquals(pinned.group(1), m.group(2), m.group(1) + " in the documents");
            checked.add(m.group(1));
        }
        assertTrue(checked.containsAll(property.keySet()), "checked only " + checked);
        // A dependency written as XML (the modules' READMEs, the BOM's import) names the pinned version too.
        Matcher xml = Pattern.compile("<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>\\s*"
                + "<version>([^<]+)</version>").matcher(Readme.text());
        while (xml.find()) {
            String coordinates = xml.group(1) + ":" + xml.group(2);
            String name = xml.group(1).equals("dev.sluice") ? "sluice-parent" : XML_PROPERTY.get(coordinates);
            assertTrue(name != null, "the documents name " + coordinates + ", which this test does not know; add it");
            String expected = name.equals("sluice-parent") ? projectVersion(pom) : pinned(pom, name);
            assertEquals(expected, xml.group(3), coordinates + " in the documents");
        }
        Matcher version = Pattern.compile("<artifactId>sluice-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(pom);
        assertTrue(version.find());
        String text = Readme.text();
        assertTrue(text.contains("<version>" + version.group(1) + "</version>"), "the BOM's version in the documents");
        assertTrue(text.contains("sluice-member-" + version.group(1) + ".jar"), "the member jar in the documents");
        assertFalse(text.contains("limiter-api.jar:"), "no hand-made class path for the member any more");
        // The examples are copied out of the reactor: the versions they name must be the build's.
        for (String example : List.of("boot-mvc", "boot-webflux", "worker")) {
            String examplePom = Files.readString(Path.of("..", "examples", example, "pom.xml"));
            for (String[] pin : new String[][] {{"sluice.version", version.group(1)},
                    {"hazelcast.version", pinned(pom, "hazelcast.version")},
                    {"micrometer.version", pinned(pom, "micrometer.version")}}) {
                assertTrue(examplePom.contains("<" + pin[0] + ">" + pin[1] + "</" + pin[0] + ">"),
                        "examples/" + example + "/pom.xml: " + pin[0] + " " + pin[1]);
            }
            assertTrue(examplePom.contains("<version>" + pinned(pom, "spring-boot.version") + "</version>"),
                    "examples/" + example + "/pom.xml: Spring Boot's version");
        }
    }

    /** Dependencies the documents write as XML, by the property that pins them in pom.xml. */
    private static final Map<String, String> XML_PROPERTY = Map.of(
            "com.hazelcast:hazelcast", "hazelcast.version",
            "javax.cache:cache-api", "cache-api.version",
            "com.github.ben-manes.caffeine:caffeine", "caffeine.version",
            "jakarta.servlet:jakarta.servlet-api", "servlet-api.version",
            "org.springframework.cloud:spring-cloud-dependencies", "spring-cloud.version");

    private static String projectVersion(String pom) {
        Matcher version = Pattern.compile("<artifactId>sluice-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(pom);
        assertTrue(version.find());
        return version.group(1);
    }

    private static String pinned(String pom, String property) {
        Matcher m = Pattern.compile("<" + Pattern.quote(property) + ">([^<]+)</").matcher(pom);
        assertTrue(m.find(), property + " is not pinned in pom.xml");
        return m.group(1);
    }
}
