package dev.sluice.explorer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.JFreeChart;

/**
 * Runs every rate algorithm's pure step on the same generated traces, with simulated time, and writes for each
 * trace a chart ({@code <trace>.png}) and the measured figures of all traces as {@code tables.md}. Run from the
 * repository's root:
 *
 * <pre>{@code mvn -B -q -pl explorer -am compile exec:exec@explore -Dexplorer.args="--trace boundary --seed 7"}</pre>
 *
 * <p>Headless: nothing needs a display. Exit status 0 when everything was written, 2 for bad settings (the
 * message names the setting), 1 when the output could not be written.
 */
public final class Explorer {
    private Explorer() {}

    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Runs with {@code args}, reporting to {@code out} and {@code err}; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            out.println(Settings.USAGE);
            return 0;
        }
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("explorer: " + e.getMessage());
            err.println();
            err.println(Settings.USAGE);
            return 2;
        }
        try {
            List<Path> written = write(settings, explore(settings));
            out.println("explorer: wrote " + written.size() + " files to " + settings.out().toAbsolutePath().normalize()
                    + " (" + settings.asArguments() + ")");
            return 0;
        } catch (IOException e) {
            err.println("explorer: could not write to " + settings.out().toAbsolutePath().normalize() + ": " + e);
            return 1;
        }
    }

    /** Every selected trace with every algorithm's run on it, in the settings' order. */
    static List<List<Run>> explore(Settings settings) {
        List<List<Run>> traces = new ArrayList<>();
        for (TraceKind kind : settings.traces()) {
            Trace trace = kind.generate(settings.limit(), settings.windowMillis(), settings.durationMillis(),
                    settings.seed());
            List<Run> runs = new ArrayList<>();
            for (Algorithm algorithm : Algorithm.values()) {
                runs.add(Run.of(algorithm, algorithm.spec(settings), trace, settings.windowMillis()));
            }
            traces.add(runs);
        }
        return traces;
    }

    /** Writes each trace's chart and then {@code tables.md}; returns the files written. */
    static List<Path> write(Settings settings, List<List<Run>> traces) throws IOException {
        Path dir = settings.out();
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IOException("--out names a file, not a directory: " + dir);
        }
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (List<Run> runs : traces) {
            Trace trace = runs.get(0).trace();
            String id = trace.kind().id();
            JFreeChart chart = Charts.chart(settings, trace, runs);
            int height = Charts.height(runs.size());
            Path png = dir.resolve(id + ".png");
            Charts.writePng(chart, png, height);
            written.add(png);
        }
        Path tables = dir.resolve("tables.md");
        Files.writeString(tables, Tables.document(settings, traces), StandardCharsets.UTF_8);
        written.add(tables);
        return written;
    }
}
