package dev.sluice.explorer;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What the explorer runs: one limit and window shared by every algorithm, the traces, their length and the seed
 * that makes them. Validated when parsed; every error names the setting, the value and the rule.
 *
 * @param limit permits per window for every algorithm (and per key in the many-clients trace)
 * @param windowMillis the window of the window algorithms; the token bucket and GCRA refill a limit's worth per window
 * @param segments the segmented sliding window's segment count
 * @param traces which traces to run, in the order given
 * @param durationMillis how long each trace runs, in simulated time
 * @param seed the seed every trace is generated from
 * @param out the directory that receives the plots and {@code tables.md}
 */
public record Settings(long limit, long windowMillis, int segments, List<TraceKind> traces, long durationMillis,
        long seed, Path out) {

    /** Largest limit: the sliding log, the exact reference, keeps one timestamp per permit. */
    static final long MAX_LIMIT = 100_000;
    static final long MAX_WINDOW_MILLIS = Duration.ofDays(366).toMillis();
    static final int MAX_SEGMENTS = 1_000;
    /** Fewest windows per trace: the boundary trace needs a quiet window, a burst and room after it. */
    static final long MIN_WINDOWS = 4;
    static final long MAX_WINDOWS = 100_000;
    /**
     * Bound on the arrivals one trace may generate (the busiest trace, many clients, asks for 8 limits per window),
     * and on arrivals × limit, what the sliding log's copy of its state costs; together they keep a run to seconds.
     */
    static final long MAX_ARRIVALS = 4_000_000;
    static final long MAX_LOG_WORK = 4_000_000_000L;

    static final Settings DEFAULTS = new Settings(100, Duration.ofMinutes(1).toMillis(), 6, List.of(TraceKind.values()),
            Duration.ofHours(1).toMillis(), 42, Path.of("docs", "explorer"));

    static final String USAGE = String.join("\n",
            "usage: mvn -B -q -pl explorer -am compile exec:exec@explore -Dexplorer.args=\"[settings]\"",
            "settings (each as --name value or --name=value):",
            "  --limit N        permits per window, 1.." + MAX_LIMIT + " (default " + DEFAULTS.limit + ")",
            "  --window D       window length, e.g. 500ms, 10s, 1m, 2h, 1d or PT1M30S (default "
                    + formatDuration(DEFAULTS.windowMillis) + ")",
            "  --segments N     segments of the sliding window, 1.." + MAX_SEGMENTS
                    + ", dividing the window into whole ms (default " + DEFAULTS.segments + ")",
            "  --trace T,...    'all' or some of: " + TraceKind.names() + " (default all)",
            "  --duration D     simulated length of each trace, " + MIN_WINDOWS + " to " + MAX_WINDOWS
                    + " windows (default " + formatDuration(DEFAULTS.durationMillis) + ")",
            "  --seed N         seed of the generated traces (default " + DEFAULTS.seed + ")",
            "  --out DIR        where the PNG charts and tables.md go (default " + DEFAULTS.out + ")",
            "  --help           this text");

    private static final List<String> NAMES = List.of("limit", "window", "segments", "trace", "duration", "seed", "out");
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

    public Settings {
        Objects.requireNonNull(traces, "traces");
        Objects.requireNonNull(out, "out");
        traces = List.copyOf(traces);
        check(limit >= 1 && limit <= MAX_LIMIT, "--limit must be between 1 and " + MAX_LIMIT
                + " (the sliding log keeps one timestamp per permit), was " + limit);
        check(windowMillis >= 1 && windowMillis <= MAX_WINDOW_MILLIS, "--window must be between 1ms and 366d, was "
                + windowMillis + " ms");
        check(segments >= 1 && segments <= MAX_SEGMENTS && segments <= windowMillis && windowMillis % segments == 0,
                "--segments must be between 1 and " + MAX_SEGMENTS + " and divide the window ("
                        + windowMillis + " ms) into whole milliseconds, was " + segments);
        check(!traces.isEmpty(), "--trace must name at least one trace");
        long windows = durationMillis / windowMillis;
        check(durationMillis % windowMillis == 0 && windows >= MIN_WINDOWS && windows <= MAX_WINDOWS,
                "--duration must be a whole number of windows (" + formatDuration(windowMillis) + "), from "
                        + MIN_WINDOWS + " to " + MAX_WINDOWS + " of them, was " + formatDuration(durationMillis));
        long arrivals = TraceKind.MOST_LIMITS_PER_WINDOW * limit * windows; // no overflow: both factors are bounded
        check(arrivals <= MAX_ARRIVALS && arrivals * limit <= MAX_LOG_WORK, "--limit " + limit + " over "
                + windows + " windows makes up to " + arrivals + " arrivals per trace; keep arrivals (8 × limit × "
                + "windows) within " + MAX_ARRIVALS + " and arrivals × limit within " + MAX_LOG_WORK
                + " (the sliding log copies its state on every grant): use a shorter --duration or a lower --limit");
    }

    /**
     * Parses {@code --name value} and {@code --name=value} settings; unset ones take their defaults.
     *
     * @throws IllegalArgumentException naming the setting, the value and what was expected
     */
    public static Settings parse(String... args) {
        Objects.requireNonNull(args, "args");
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = Objects.requireNonNull(args[i], "args[" + i + "]");
            if (arg.isBlank()) {
                continue; // Maven passes an empty explorer.args as an empty word
            }
            check(arg.startsWith("--") && arg.length() > 2, "unexpected argument '" + arg
                    + "'; settings are given as --name value");
            String name;
            String value;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(2, eq);
                value = arg.substring(eq + 1);
            } else {
                name = arg.substring(2);
                check(i + 1 < args.length, "--" + name + " needs a value");
                value = args[++i];
            }
            check(NAMES.contains(name), "unknown setting --" + name + "; the settings are --"
                    + String.join(", --", NAMES));
            check(given.put(name, value) == null, "--" + name + " was given twice");
        }
        Settings d = DEFAULTS;
        long limit = given.containsKey("limit") ? parseLong("limit", given.get("limit")) : d.limit;
        long window = given.containsKey("window") ? parseDuration("window", given.get("window")) : d.windowMillis;
        long segments = given.containsKey("segments") ? parseLong("segments", given.get("segments")) : d.segments;
        check(segments >= 1 && segments <= MAX_SEGMENTS, "--segments must be between 1 and " + MAX_SEGMENTS
                + ", was " + segments);
        List<TraceKind> traces = given.containsKey("trace") ? parseTraces(given.get("trace")) : d.traces;
        long duration = given.containsKey("duration") ? parseDuration("duration", given.get("duration"))
                : d.durationMillis;
        long seed = given.containsKey("seed") ? parseLong("seed", given.get("seed")) : d.seed;
        Path out = d.out;
        if (given.containsKey("out")) {
            String dir = given.get("out");
            check(!dir.isBlank(), "--out must name a directory, was '" + dir + "'");
            out = Path.of(dir);
        }
        return new Settings(limit, window, (int) segments, traces, duration, seed, out);
    }

    /** How many windows each trace lasts. */
    long windows() {
        return durationMillis / windowMillis;
    }

    /** The settings as {@code --name value} words, without {@code --out}: what reproduces the figures. */
    String asArguments() {
        String traceNames = traces.equals(List.of(TraceKind.values())) ? "all"
                : traces.stream().map(TraceKind::id).collect(Collectors.joining(","));
        return "--limit " + limit + " --window " + formatDuration(windowMillis) + " --segments " + segments
                + " --duration " + formatDuration(durationMillis) + " --trace " + traceNames + " --seed " + seed;
    }

    /** A duration in the shortest form {@link #parse} reads back, e.g. {@code 1m}, {@code 90s}, {@code 250ms}. */
    static String formatDuration(long millis) {
        long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] units = {"d", "h", "m", "s"};
        for (int i = 0; i < sizes.length; i++) {
            if (millis % sizes[i] == 0) {
                return millis / sizes[i] + units[i];
            }
        }
        return millis + "ms";
    }

    private static long parseLong(String name, String text) {
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, was '" + text + "'", e);
        }
    }

    private static long parseDuration(String name, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE_DURATION.matcher(t);
        String expected = "--" + name + " must be a duration such as 500ms, 10s, 1m, 2h, 1d or PT1M30S, was '" + text
                + "'";
        Duration d;
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        } else {
            try {
                d = Duration.parse(text.strip());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(expected, e);
            }
        }
        check(!d.isNegative() && !d.isZero() && d.compareTo(Duration.ofDays(366L * MAX_WINDOWS)) <= 0,
                "--" + name + " must be positive and at most " + 366L * MAX_WINDOWS + "d, was '" + text + "'");
        check(d.getNano() % 1_000_000 == 0, "--" + name + " must be a whole number of milliseconds, was '" + text + "'");
        return d.toMillis();
    }

    private static List<TraceKind> parseTraces(String text) {
        if (text.strip().equals("all")) {
            return List.of(TraceKind.values());
        }
        List<TraceKind> traces = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            TraceKind kind = TraceKind.byId(part.strip());
            check(kind != null, "--trace must be 'all' or a comma-separated list of " + TraceKind.names() + ", was '"
                    + text + "'");
            check(!traces.contains(kind), "--trace names " + kind.id() + " twice in '" + text + "'");
            traces.add(kind);
        }
        return traces;
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
