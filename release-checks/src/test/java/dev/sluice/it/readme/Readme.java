package dev.sluice.it.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The Java blocks of the user documents (the README, every page under {@code docs/} and each module's README) as
 * programs. A block is the imports it starts with and statements; it becomes the {@code main} of a class of its
 * own, compiled against the test class path. The line before a block may say how the suite uses it:
 * {@code <!-- run -->} (compiled and run), {@code <!-- client -->} (run against a member started from the README's
 * command), {@code <!-- from <file> -->} (a quote of a source file of the repository, which its own module compiles
 * and runs, where this suite's class path could not: a Spring Boot test); any other block is compiled only. A line {@code System.out.println(x); // v: why} must print {@code v}
 * ({@link Printed}).
 */
final class Readme {
    private static final Path ROOT = Path.of("..");
    private static final Path DOCS = ROOT.resolve("docs");

    /** A block of {@code file} (relative to the repository's root, with {@code /}) starting at {@code line}. */
    record Snippet(String file, int line, String marker, String code) {
        String className() {
            return "Snippet_" + file.replaceAll("[^A-Za-z0-9]", "_") + "_L" + line;
        }

        /** Where a line of the block is, {@code offset} lines below its fence. */
        String where(int offset) {
            return file + " line " + (line + offset);
        }

        @Override
        public String toString() {
            return where(0) + (marker.isEmpty() ? "" : " (" + marker + ")");
        }
    }

    /** {@code System.out.println(x); // v: why}, where {@code v} has no space: what the line prints. */
    private static final Pattern PRINTED = Pattern.compile("^(\\s*)System\\.out\\.println\\((.*)\\);\\s*//\\s*([^\\s:]+)(:.*)?$");

    /** The marker of a block quoting a file of the repository: {@code from <path from the root>}. */
    static final String QUOTED = "from ";

    private Readme() {}

    /** A quoting block is, line for line, a contiguous part of the file it names. */
    static void checkQuote(Snippet snippet) throws IOException {
        Path file = ROOT.resolve(snippet.marker().substring(QUOTED.length()).strip());
        assertTrue(Files.isRegularFile(file), snippet + " quotes " + file + ", which does not exist");
        assertTrue(Files.readString(file).contains(snippet.code()), snippet + " is not the text of " + file
                + " (copy the file's lines again):\n" + snippet.code());
    }

    /** The README, every Markdown page under {@code docs/}, then each module's README, in path order. */
    static List<Path> files() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        if (Files.isDirectory(DOCS)) {
            try (Stream<Path> pages = Files.walk(DOCS)) {
                pages.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
            }
        }
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.map(dir -> dir.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(files::add);
        }
        return files;
    }

    /** Every document's text, one after another. */
    static String text() throws IOException {
        StringBuilder text = new StringBuilder();
        for (Path file : files()) {
            text.append(Files.readString(file)).append('\n');
        }
        return text.toString();
    }

    static List<Snippet> snippets() throws IOException {
        List<Snippet> snippets = new ArrayList<>();
        for (Path file : files()) {
            snippets.addAll(snippets(ROOT.relativize(file).toString().replace('\\', '/'), Files.readAllLines(file)));
        }
        return snippets;
    }

    private static List<Snippet> snippets(String file, List<String> lines) {
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java")) {
                continue;
            }
            String before = i > 0 ? lines.get(i - 1).strip() : "";
            String marker = before.startsWith("<!--") ? before.replace("<!--", "").replace("-->", "").strip() : "";
            StringBuilder code = new StringBuilder();
            int j = i + 1;
            for (; j < lines.size() && !lines.get(j).strip().equals("```"); j++) {
                code.append(lines.get(j)).append('\n');
            }
            snippets.add(new Snippet(file, i + 1, marker, code.toString()));
            i = j;
        }
        return snippets;
    }

    /** The snippet as a class: its imports, then its statements as {@code main}. */
    static String source(Snippet snippet) {
        StringBuilder imports = new StringBuilder();
        StringBuilder body = new StringBuilder();
        String[] lines = snippet.code().split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher printed = PRINTED.matcher(line);
            if (printed.matches()) {
                // The comment states what the line prints: the run checks it (see Printed).
                line = printed.group(1) + Printed.class.getName() + ".println(" + printed.group(2) + ", \""
                        + printed.group(3) + "\", \"" + snippet.where(1 + i) + "\");";
            }
            (line.startsWith("import ") ? imports : body).append(line).append('\n');
        }
        return imports + "\npublic final class " + snippet.className() + " {\n"
                + "    public static void main(String[] args) throws Exception {\n" + body + "    }\n}\n";
    }

    /** Compiles the snippet; fails with the compiler's messages. */
    static Class<?> compile(Snippet snippet) throws Exception {
        Path dir = Path.of("target", "readme-snippets", snippet.className());
        Path src = dir.resolve(snippet.className() + ".java");
        Files.createDirectories(dir);
        Files.writeString(src, source(snippet));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter messages = new StringWriter();
        boolean ok = javac.getTask(messages, null, null, List.of("-classpath", System.getProperty("java.class.path"),
                "-d", dir.toString(), "-Xlint:none"), null,
                javac.getStandardFileManager(null, null, null).getJavaFileObjects(src)).call();
        assertTrue(ok, snippet + " does not compile as it stands:\n" + messages + "\n" + source(snippet));
        URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, Readme.class.getClassLoader());
        return loader.loadClass(snippet.className());
    }

    /** Runs the compiled snippet's main (at most a minute); shuts down any Hazelcast instance it left running. */
    static void run(Snippet snippet, Class<?> compiled) throws Throwable {
        Set<HazelcastInstance> before = new HashSet<>(Hazelcast.getAllHazelcastInstances());
        before.addAll(HazelcastClient.getAllHazelcastClients());
        Method main = compiled.getMethod("main", String[].class);
        Throwable failure = null;
        try {
            CompletableFuture.runAsync(() -> {
                try {
                    main.invoke(null, (Object) new String[0]);
                } catch (InvocationTargetException e) {
                    throw new IllegalStateException(snippet + " failed", e.getCause());
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }, r -> new Thread(r, snippet.className()).start()).get(1, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            failure = e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            failure = new AssertionError(snippet + " did not finish within a minute", e);
        }
        List<HazelcastInstance> left = new ArrayList<>(Hazelcast.getAllHazelcastInstances());
        left.addAll(HazelcastClient.getAllHazelcastClients());
        left.removeAll(before);
        left.removeIf(hz -> !hz.getLifecycleService().isRunning()); // shut down, not yet deregistered
        List<String> names = left.stream().map(HazelcastInstance::getName).toList();
        left.forEach(hz -> hz.getLifecycleService().terminate());
        if (failure != null) {
            throw failure; // the snippet's own failure, not the instances it left behind because of it
        }
        assertEquals(List.of(), names, snippet + " left Hazelcast instances running");
    }
}
