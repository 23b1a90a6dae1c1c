package dev.sluice.it.modules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What each published module exports, read from its compiled {@code module-info.class}: the API to everyone,
 * the backend contract and the algorithms only to Sluice's backend modules, the runtime to no one.
 * (jcache-impl has no descriptor: {@code javax.cache:cache-api} 1.1.1 has no module name to require, so,
 * like Caffeine's own JCache module, it stays an automatic module named {@code dev.sluice.jcache}.)
 */
final class ModuleDescriptorsTest {

    private static ModuleDescriptor descriptor(String module) throws Exception {
        Path file = Path.of("..", module, "target", "classes", "module-info.class");
        assertTrue(Files.isRegularFile(file), file + " is missing");
        try (InputStream in = Files.newInputStream(file)) {
            return ModuleDescriptor.read(in);
        }
    }

    /** package -> the modules it is exported to ("*" for everyone). */
    private static Map<String, String> exports(ModuleDescriptor d) {
        Map<String, String> exports = new TreeMap<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            exports.put(e.source(), e.isQualified() ? String.join(",", new java.util.TreeSet<>(e.targets())) : "*");
        }
        return exports;
    }

    @Test
    void limiterApi_exportsTheApiToAllAndTheBackendContractToBackendsOnly() throws Exception {
        ModuleDescriptor d = descriptor("limiter-api");
        assertEquals("dev.sluice.limiter", d.name());
        String backends = "dev.sluice.hazelcast,dev.sluice.jcache";
        assertEquals(Map.of(
                "dev.sluice.limiter", "*",
                "dev.sluice.limiter.local", "*",
                "dev.sluice.limiter.micrometer", "*",
                "dev.sluice.limiter.store", backends,
                "dev.sluice.limiter.algorithm", backends), exports(d));
        assertTrue(Files.isDirectory(Path.of("..", "limiter-api", "target", "classes", "dev", "sluice", "limiter", "runtime")),
                "the runtime is in the module, exported to none");
        Set<String> staticRequires = d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
        assertEquals(Set.of("micrometer.core"), staticRequires, "Micrometer is optional");
    }

    @Test
    void hazelcastImpl_exportsItsPackageAndRequiresHazelcastTransitively() throws Exception {
        ModuleDescriptor d = descriptor("hazelcast-impl");
        assertEquals("dev.sluice.hazelcast", d.name());
        assertEquals(Map.of("dev.sluice.hazelcast", "*"), exports(d));
        assertTrue(d.requires().stream().anyMatch(r -> r.name().equals("com.hazelcast.core")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)));
    }

    @Test
    void localPrefilter_exportsItsPackageOnly() throws Exception {
        ModuleDescriptor d = descriptor("local-prefilter");
        assertEquals("dev.sluice.prefilter", d.name());
        assertEquals(Map.of("dev.sluice.prefilter", "*"), exports(d));
    }

    @Test
    void httpCore_exportsItsPackageAndNeedsNoServletApi() throws Exception {
        ModuleDescriptor d = descriptor("http-core");
        assertEquals("dev.sluice.http", d.name());
        assertEquals(Map.of("dev.sluice.http", "*"), exports(d));
        // Spring Boot only at compile time, for the annotation that lets Boot's processor describe the settings model.
        assertEquals(Set.of("java.base", "dev.sluice.limiter"), d.requires().stream()
                .filter(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()));
        assertEquals(Set.of("spring.boot"), d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()));
    }

    @Test
    void servletFilter_exportsItsPackageAndNeedsTheServletApi() throws Exception {
        ModuleDescriptor d = descriptor("servlet-filter");
        assertEquals(Map.of("dev.sluice.servlet", "*"), exports(d));
        assertTrue(d.requires().stream().anyMatch(r -> r.name().equals("jakarta.servlet")));
        assertTrue(d.requires().stream().anyMatch(r -> r.name().equals("dev.sluice.http")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)));
    }
}
