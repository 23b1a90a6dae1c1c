package dev.sluice.explorer;

import java.util.List;
import java.util.Locale;

/** The measured figures as markdown: a header that defines every column, then one table per trace. */
final class Tables {
    static final String COMMAND = "mvn -B -q -pl explorer -am compile exec:exec@explore";

    private Tables() {}

    /** The command line that reproduces these settings' figures. */
    static String command(Settings settings) {
        return COMMAND + " -Dexplorer.args=\"" + settings.asArguments() + "\"";
    }

    static String document(Settings settings, List<List<Run>> traces) {
        StringBuilder md = new StringBuilder();
        md.append("# Every algorithm on the same traffic\n\n")
                .append("Written by the explorer (`explorer/`), with simulated time; reproduce with\n\n")
                .append("```\n").append(command(settings)).append("\n```\n\n")
                .append("Every trace is generated from the seed. Each algorithm decides every arrival (one permit each)"
                        + " with its pure step, each key on its own state, all with the limit ")
                .append(settings.limit()).append(" per ").append(Settings.formatDuration(settings.windowMillis()))
                .append("; the token bucket and GCRA refill that rate and hold a burst of one limit.\n\n")
                .append("- **admitted**, **refused**: decisions over the whole trace, all keys together; **vs the log**:"
                        + " how many more (+) or fewer (-) the algorithm admitted than the sliding log did on the same"
                        + " arrivals.\n")
                .append("- **max in a window ÷ limit**: the most admissions one key had in any interval one window long,"
                        + " `(t − window, t]`, divided by the limit. The exact rule, which the sliding log enforces,"
                        + " allows 1.00 at most.\n")
                .append("- **wrongly allowed**, **wrongly refused**: the share of the algorithm's decisions (and their"
                        + " number) that the exact sliding log would have made the other way in the same situation:"
                        + " the same key, the same instant and the admissions this algorithm made so far. Wrongly"
                        + " allowed: admitted although the window ending then already held the limit; wrongly"
                        + " refused: refused although it had room. Judged on the algorithm's own history, so one early"
                        + " difference is not counted again in every later decision.\n")
                .append("- † the fixed window, token bucket and GCRA enforce other rules: their shares say how far"
                        + " those rules are from a sliding-window limit, not how often they err.\n");
        for (List<Run> runs : traces) {
            md.append('\n').append(table(settings, runs));
        }
        return md.toString();
    }

    static String table(Settings settings, List<Run> runs) {
        Trace trace = runs.get(0).trace();
        String id = trace.kind().id();
        StringBuilder md = new StringBuilder();
        md.append("## ").append(id).append("\n\n")
                .append(trace.kind().title()).append(": ").append(trace.kind().description())
                .append(String.format(Locale.ROOT,
                        "; seed %d, %,d arrivals on %s.\n\n", trace.seed(), trace.size(),
                        trace.keyCount() == 1 ? "1 key" : trace.keyCount() + " keys"))
                .append("![").append(id).append("](").append(id).append(".png)\n\n")
                .append("| algorithm | spec | admitted | vs the log | refused | max in a window ÷ limit"
                        + " | wrongly allowed | wrongly refused |\n")
                .append("|---|---|---:|---:|---:|---:|---:|---:|\n");
        long logAdmitted = runs.stream().filter(r -> r.algorithm() == Algorithm.SLIDING_LOG).findFirst()
                .orElseThrow().admitted();
        for (Run run : runs) {
            Algorithm a = run.algorithm();
            String label = a.label(settings) + switch (a.relation()) {
                case EXACT -> " (exact)";
                case APPROXIMATION -> "";
                case OTHER_RULE -> " †";
            };
            md.append(String.format(Locale.ROOT, "| %s | `%s` | %,d | %s | %,d | %.2f | %s | %s |\n", label,
                    a.factoryCall(settings), run.admitted(), difference(run.admitted(), logAdmitted), run.refused(),
                    run.maxInWindowRatio(),
                    share(run.wronglyAllowed(), trace.size()), share(run.wronglyRefused(), trace.size())));
        }
        return md.toString();
    }

    /** How many more (or fewer) an algorithm admitted than the log, e.g. {@code +0.93%}. */
    static String difference(long admitted, long logAdmitted) {
        if (admitted == logAdmitted) {
            return "=";
        }
        return String.format(Locale.ROOT, "%+.2f%%", 100.0 * (admitted - logAdmitted) / Math.max(1, logAdmitted));
    }

    /** A share of the decisions with its count, e.g. {@code 0.417% (50)}. */
    static String share(long count, long decisions) {
        if (count == 0) {
            return "0";
        }
        return String.format(Locale.ROOT, "%.3f%% (%,d)", 100.0 * count / decisions, count);
    }
}
