package dev.sluice.it.modules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What a Maven Central release of this build would upload, checked offline on the reactor's own output: every
 * module the BOM lists has its jar, a sources jar holding the source of each class, a javadoc jar, and a POM
 * that (with the parent it inherits from) carries the name, description, url, licence, SCM and developers that
 * Central requires. Signing is the release profile's alone, so the ordinary build never needs a key.
 */
final class PublishedArtifactsTest {
    private static final Path ROOT = Path.of("..");
    private static final String VERSION = System.getProperty("sluice.version");

    private static Document pom(Path file) throws Exception {
        assertTrue(Files.isRegularFile(file), file + " is missing");
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    /** The first child element of {@code parent} named {@code name}, or null. */
    private static Element child(Element parent, String name) {
        for (Node n = parent == null ? null : parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    /** Every child element of {@code parent} named {@code name}; none when {@code parent} is null. */
    private static List<Element> children(Element parent, String name) {
        List<Element> all = new ArrayList<>();
        for (Node n = parent == null ? null : parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                all.add(e);
            }
        }
        return all;
    }

    /** The text at a path of child elements ("scm/url"), blank when any step is missing. */
    private static String text(Element from, String path) {
        Element at = from;
        for (String step : path.split("/")) {
            at = at == null ? null : child(at, step);
        }
        return at == null ? "" : at.getTextContent().strip();
    }

    /** artifactId to module directory, for every module of the root POM. */
    private static Map<String, Path> modules() throws Exception {
        Map<String, Path> modules = new LinkedHashMap<>();
        for (Element m : children(child(pom(ROOT.resolve("pom.xml")).getDocumentElement(), "modules"), "module")) {
            Path dir = ROOT.resolve(m.getTextContent().strip());
            modules.put(text(pom(dir.resolve("pom.xml")).getDocumentElement(), "artifactId"), dir);
        }
        return modules;
    }

    /** The artifacts a release publishes besides the parent: the BOM and every module it pins. */
    private static Set<String> published() throws Exception {
        Set<String> published = new TreeSet<>();
        published.add("sluice-bom");
        Element bom = pom(ROOT.resolve("bom").resolve("pom.xml")).getDocumentElement();
        for (Element d : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
            assertEquals("dev.sluice", text(d, "groupId"), "the BOM pins only Sluice's own modules");
            published.add(text(d, "artifactId"));
        }
        return published;
    }

    /** The metadata Central requires, each present and not blank, on {@code project} or else on its parent. */
    private static void assertCentralMetadata(String artifact, Element project, Element parent) {
        assertFalse(text(project, "name").isEmpty(), artifact + ": <name> of its own");
        assertFalse(text(project, "description").isEmpty(), artifact + ": <description> of its own");
        if (parent != null) {
            assertFalse(text(project, "description").equals(text(parent, "description")),
                    artifact + ": a description of its own, not the parent's");
        }
        for (String path : List.of("url", "licenses/license/name", "licenses/license/url", "scm/url",
                "scm/connection", "developers/developer/name")) {
            String own = text(project, path);
            String inherited = parent == null ? "" : text(parent, path);
            assertFalse(own.isEmpty() && inherited.isEmpty(), artifact + ": <" + path + "> is missing");
        }
        String licence = text(project, "licenses/license/name").isEmpty() && parent != null
                ? text(parent, "licenses/license/name") : text(project, "licenses/license/name");
        assertEquals("Apache License, Version 2.0", licence, artifact + ": the licence");
    }

    private static Set<String> entries(Path jar) throws IOException {
        assertTrue(Files.isRegularFile(jar) && Files.size(jar) > 0, jar + " is missing; run `mvn verify`");
        Set<String> names = new TreeSet<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (Enumeration<? extends ZipEntry> e = file.entries(); e.hasMoreElements(); ) {
                names.add(e.nextElement().getName());
            }
        }
        return names;
    }

    @Test
    void everyPublishedModule_hasItsJarSourcesJavadocAndCentralMetadata() throws Exception {
        assertNotNull(VERSION, "sluice.version is set by the release-checks POM");
        Element parent = pom(ROOT.resolve("pom.xml")).getDocumentElement();
        assertCentralMetadata("sluice-parent", parent, null);
        // Without these attributes Maven appends each module's artifactId to the inherited url and scm.
        assertEquals("false", parent.getAttribute("child.project.url.inherit.append.path"));
        assertEquals("false", child(parent, "scm").getAttribute("child.scm.url.inherit.append.path"));

        Map<String, Path> modules = modules();
        Set<String> published = published();
        assertTrue(published.size() >= 7, "the BOM and the modules it pins: " + published);
        for (String artifact : published) {
            Path dir = modules.get(artifact);
            assertNotNull(dir, artifact + " is in the BOM but not a module of the build");
            Element project = pom(dir.resolve("pom.xml")).getDocumentElement();
            Element itsParent = child(project, "parent");
            if (itsParent != null) {
                assertEquals("sluice-parent", text(itsParent, "artifactId"), artifact + "'s parent");
            }
            assertCentralMetadata(artifact, project, itsParent == null ? null : parent);
            for (Element d : children(child(project, "dependencies"), "dependency")) {
                if (text(d, "groupId").equals("dev.sluice") && !text(d, "scope").equals("test")) {
                    assertTrue(published.contains(text(d, "artifactId")),
                            artifact + " depends on " + text(d, "artifactId") + ", which is never published");
                }
            }
            if (text(project, "packaging").equals("pom")) {
                continue;
            }
            Path target = dir.resolve("target");
            String base = artifact + "-" + VERSION;
            Set<String> classes = entries(target.resolve(base + ".jar"));
            Set<String> sources = entries(target.resolve(base + "-sources.jar"));
            Set<String> javadoc = entries(target.resolve(base + "-javadoc.jar"));
            assertTrue(classes.stream().anyMatch(c -> c.endsWith(".class") && !c.startsWith("META-INF/")),
                    base + ".jar holds no classes");
            Path main = dir.resolve("src").resolve("main").resolve("java");
            try (Stream<Path> files = Files.walk(main)) {
                for (Path source : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    String entry = main.relativize(source).toString().replace('\\', '/');
                    assertTrue(sources.contains(entry), base + "-sources.jar lacks " + entry);
                }
            }
            assertTrue(javadoc.contains("index.html") && javadoc.contains("element-list"),
                    base + "-javadoc.jar is not a javadoc tree: " + javadoc.size() + " entries");
        }
    }

    /** A new module is either pinned by the BOM (and so checked above) or says it is never published. */
    @Test
    void everyOtherModule_isNeverDeployed() throws Exception {
        Set<String> published = published();
        for (Map.Entry<String, Path> module : modules().entrySet()) {
            if (!published.contains(module.getKey())) {
                Element project = pom(module.getValue().resolve("pom.xml")).getDocumentElement();
                assertEquals("true", text(project, "properties/maven.deploy.skip"),
                        module.getKey() + " is not in the BOM, so it must set maven.deploy.skip");
            }
        }
    }

    @Test
    void signing_isTheReleaseProfilesAlone() throws Exception {
        for (Path pom : List.of(ROOT.resolve("pom.xml"), ROOT.resolve("bom").resolve("pom.xml"))) {
            Element project = pom(pom).getDocumentElement();
            for (Element p : children(child(child(project, "build"), "plugins"), "plugin")) {
                assertFalse(text(p, "artifactId").equals("maven-gpg-plugin"), pom + ": gpg outside a profile");
            }
            boolean signs = false;
            for (Element profile : children(child(project, "profiles"), "profile")) {
                if (text(profile, "id").equals("release")) {
                    for (Element p : children(child(child(profile, "build"), "plugins"), "plugin")) {
                        signs |= text(p, "artifactId").equals("maven-gpg-plugin")
                                && text(p, "executions/execution/goals/goal").equals("sign");
                    }
                }
            }
            assertTrue(signs, pom + ": the release profile signs");
        }
    }

    /** The BOM has no parent, so it repeats plugin versions; they are the ones the parent's properties pin. */
    @Test
    void bomPluginVersions_areTheParentsPins() throws Exception {
        Element properties = child(pom(ROOT.resolve("pom.xml")).getDocumentElement(), "properties");
        Element bom = pom(ROOT.resolve("bom").resolve("pom.xml")).getDocumentElement();
        List<Element> plugins = children(child(child(child(bom, "build"), "pluginManagement"), "plugins"), "plugin");
        assertFalse(plugins.isEmpty());
        for (Element p : plugins) {
            String artifact = text(p, "artifactId");
            String property = artifact.replaceFirst("^maven-", "") + ".version";
            assertEquals(text(properties, property), text(p, "version"), "sluice-bom's " + artifact);
        }
    }

    @Test
    void licenceAndNotice_atTheRoot() throws IOException {
        String licence = Files.readString(ROOT.resolve("LICENSE"));
        assertTrue(licence.contains("Apache License") && licence.contains("Version 2.0, January 2004")
                && licence.contains("END OF TERMS AND CONDITIONS"), "LICENSE is the full Apache-2.0 text");
        assertTrue(Files.readString(ROOT.resolve("NOTICE")).startsWith("Sluice\n"));
    }
}
