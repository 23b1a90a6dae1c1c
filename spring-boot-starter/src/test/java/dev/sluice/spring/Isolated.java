package dev.sluice.spring;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * The test class path without some of its entries, as a separate class loader, and sources compiled against
 * it with the JDK's compiler: what an application without {@code spring-web} (or built without
 * {@code -parameters}) sees.
 */
final class Isolated {
    /** Every jar of the web stack: Spring's web modules, the servlet API, the servers, Netty. */
    static final Predicate<String> WEB = name -> name.startsWith("spring-web") || name.startsWith("jakarta.servlet-api")
            || name.startsWith("tomcat-embed") || name.startsWith("spring-boot-web") || name.startsWith("spring-boot-starter-web")
            || name.startsWith("spring-boot-tomcat") || name.startsWith("spring-boot-servlet")
            || name.startsWith("spring-boot-starter-tomcat") || name.startsWith("spring-boot-reactor")
            || name.startsWith("spring-boot-starter-reactor") || name.startsWith("reactor-netty")
            || name.startsWith("netty-") || name.startsWith("spring-boot-http");

    private Isolated() {}

    /** The test class path without the test classes and without what {@code excluded} names (by file name). */
    static List<Path> classPath(Predicate<String> excluded) {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<Path> entries = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            Path path = Path.of(entry);
            // The test classes carry the other tests' application.yml and hazelcast.yaml.
            if (!path.endsWith("test-classes") && !excluded.test(path.getFileName().toString())) {
                entries.add(path);
            }
        }
        return entries;
    }

    /** Compiles {@code sources} (class name to source) against {@code classPath} into a new directory. */
    static Path compile(Map<String, String> sources, List<Path> classPath, String... options) throws IOException {
        Path out = Files.createTempDirectory("sluice-isolated");
        List<JavaFileObject> units = new ArrayList<>();
        sources.forEach((name, source) -> units.add(new SimpleJavaFileObject(
                URI.create("string:///" + name.replace('.', '/') + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        }));
        List<String> args = new ArrayList<>(List.of("-proc:none", "-d", out.toString(), "-classpath",
                String.join(File.pathSeparator, classPath.stream().map(Path::toString).toList())));
        args.addAll(List.of(options));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter errors = new StringWriter();
        if (!javac.getTask(errors, null, null, args, null, units).call()) {
            throw new AssertionError("compilation failed: " + errors);
        }
        return out;
    }

    /** A class loader of {@code classPath} (and {@code extra}) alone, above the platform's. */
    static URLClassLoader loader(List<Path> classPath, Path... extra) throws IOException {
        List<URL> urls = new ArrayList<>();
        for (Path p : extra) {
            urls.add(p.toUri().toURL());
        }
        for (Path p : classPath) {
            urls.add(p.toUri().toURL());
        }
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }
}
