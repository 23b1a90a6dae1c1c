package dev.sluice.prefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.local.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Measures both modes on the documented workloads and writes {@code target/prefilter-figures.md}:
 * {@code mvn -B -q -pl local-prefilter -am verify -Dtest=FiguresTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
final class FiguresTest {

    @Test
    void writeFigures() throws Exception {
        StringBuilder out = new StringBuilder();
        out.append("### Refusal cache: one client, limit 10/s, 5 s, requests evenly spaced\n\n")
                .append("| algorithm | demand | requests | granted | store calls unwrapped | store calls wrapped | fewer calls | refusals answered locally | decisions identical |\n")
                .append("|---|---|---|---|---|---|---|---|---|\n");
        for (int factor : new int[] {10, 20}) {
            for (LimitSpec spec : Workloads.specs().toList()) {
                Workloads.Comparison c = Workloads.compareRefusalCache(spec, factor, 5, new ManualClock());
                assertEquals(c.plain(), c.wrapped());
                long refused = c.requests() - c.granted();
                long refusalHops = c.wrappedCalls() - c.granted();
                out.append(String.format("| %s | %d× | %d | %d | %d | %d | %.1f%% | %.1f%% | yes |%n", c.algorithm(),
                        factor, c.requests(), c.granted(), c.plainCalls(), c.wrappedCalls(), 100 * c.reduction(),
                        100.0 * (refused - refusalHops) / refused));
            }
        }
        out.append("\n### Allowance: 4 replicas on one key, fixed window 1000/s, 8 threads, 3 windows\n\n")
                .append("| demand | max batch | requests | store calls | calls per request | granted per window | max stranded at a refusal (bound) | permits discarded unused |\n")
                .append("|---|---|---|---|---|---|---|---|\n");
        List<Workloads.AllowanceRun> runs = new ArrayList<>();
        runs.add(Workloads.allowance(4, 2, 1000, 25, 3, 0.1));
        runs.add(Workloads.allowance(4, 2, 1000, 25, 3, 0.02));
        runs.add(Workloads.allowance(4, 2, 1000, 2, 3, 0.1));
        for (Workloads.AllowanceRun r : runs) {
            long demandPerWindow = r.requests() / r.grantedPerWindow().length;
            out.append(String.format("| %.1f× | %d | %d | %d | %.4f | %s | %d (%d) | %d |%n",
                    (double) demandPerWindow / r.limit(), r.batchCap(), r.requests(), r.storeCalls(), r.hopsPerRequest(),
                    java.util.Arrays.toString(r.grantedPerWindow()), r.maxStrandedAtRefusal(), r.bound(), r.discarded()));
        }
        Path file = Path.of("target", "prefilter-figures.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, out);
        System.out.println(out);
    }
}
