package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmarks.BenchmarkMain.Cell;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-flight pass's cells from the load JVMs' answers, and its table and goals on cells whose ratios are known. */
final class InflightReportTest {

    /** A load JVM's answer: {@code completed} decisions in {@code seconds}, with its latency percentiles. */
    private static String[] answer(String contender, long completed, double seconds, double p50, double p99) {
        return ("RESULT " + contender + " " + completed + " " + (long) (seconds * 1e9) + " " + completed + " 0 " + p50 + " "
                + p99 + " " + (p99 * 2)).split(" ");
    }

    @Test
    void cell_twoLoadJvms_ratesSummed_worsePercentiles_meanByLittlesLaw() {
        Cell c = InflightPass.cell("raw", "client", "100k", 1024,
                List.<String[]>of(answer("raw", 60_000, 2.0, 900, 4_000), answer("raw", 50_000, 1.0, 1_100, 3_000)), 0);
        assertEquals(30_000 + 50_000, c.opsPerSecond(), 1e-6);
        assertEquals(1024 * 1e6 / 80_000, c.meanMicros(), 1e-9);
        assertEquals(1_100, c.p50());
        assertEquals(4_000, c.p99());
        assertEquals(8_000, c.p999());
        assertEquals(110_000, c.samples());
        assertEquals(1024, c.threads());
    }

    /** Two rounds whose machine speeds differ 2×: the ratios within each round stay as set. */
    private static List<Cell> measured() {
        List<Cell> cells = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            double speed = round == 0 ? 1.0 : 0.5;
            for (String topology : List.of("embedded", "client")) {
                cells.add(cell("sluice-coalesced", topology, 120_000 * speed, round));
                cells.add(cell("sluice", topology, 100_000 * speed, round));
                cells.add(cell("raw", topology, 110_000 * speed, round));
                cells.add(cell("bucket4j", topology, (topology.equals("embedded") ? 50_000 : 70_000) * speed, round));
                cells.add(cell("redis-lettuce", topology, 100_000 * speed, round));
            }
        }
        return cells;
    }

    private static Cell cell(String contender, String topology, double ops, int round) {
        return InflightPass.cell(contender, topology, "1M", 1024, List.<String[]>of(answer(contender, (long) ops, 1.0, 100, 200)),
                round);
    }

    @Test
    void goals_ratiosWithinEachRound_judgedAgainstTheirBars() {
        List<Cell> measured = measured();
        String md = InflightReport.render(BenchmarkMain.medians(measured), measured, new InflightPass.Result(measured,
                java.util.Map.of(), List.of(), List.of(new InflightPass.Sanity("64 connections × 16 pipelined (1,024 in flight)", 122_000)),
                "test"));
        assertTrue(md.contains("| embedded 1M keys 1024 in flight | 60,000 | 60,000–120,000 | 1.20 ✓ (1.20–1.20) | ✗ |"
                + " 2.40 ✓ (2.40–2.40) | 1.20 ✓ (1.20–1.20) | 1.09 (1.09–1.09) |"), md);
        assertTrue(md.contains("| client 1M keys 1024 in flight | 60,000 | 60,000–120,000 | 1.20 ✓ (1.20–1.20) | ✗ |"
                + " 1.71 ✗ (1.71–1.71) |"), md);
        assertTrue(md.contains("| client | 1M | 1024 | bucket4j | 35,000 | 35,000–70,000 |"), md);
        assertTrue(md.contains("| 64 connections × 16 pipelined (1,024 in flight) | 122,000 |"), md);
    }

    @Test
    void noInflightCells_noSection() {
        List<Cell> jmh = List.of(new Cell("sluice", "embedded", "uniform", "grant", "token-bucket", "REPLICATED", 32,
                100, 100, 100, 100, 1_000, 0));
        assertEquals("", InflightReport.render(jmh, jmh, InflightPass.Result.NONE));
    }
}
