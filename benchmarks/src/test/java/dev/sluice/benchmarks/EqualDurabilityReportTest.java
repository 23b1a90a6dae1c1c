package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmarks.BenchmarkMain.Cell;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The durability pass's table and goal checks, on cells whose ratios are known. */
final class EqualDurabilityReportTest {

    private static Cell cell(String contender, String topology, String durability, double meanMicros, int round) {
        return new Cell(contender, topology, "uniform", "grant", "token-bucket", durability, 32, meanMicros, meanMicros,
                meanMicros, meanMicros, 1_000, round);
    }

    /** Two rounds: each ratio is taken within a round, and the median (the lower middle) is judged. */
    private static List<Cell> measured() {
        List<Cell> cells = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            double drift = round == 0 ? 1.0 : 2.0; // the machine slows down; the ratios within a round do not
            cells.add(cell("sluice-coalesced", "embedded", "REPLICATED_ASYNC", 1_000 * drift, round));
            cells.add(cell("sluice-coalesced", "embedded", "EPHEMERAL", 950 * drift, round));
            cells.add(cell("sluice-coalesced", "client", "REPLICATED_ASYNC", 1_000 * drift, round));
            cells.add(cell("sluice-coalesced", "client", "EPHEMERAL", 800 * drift, round));
            cells.add(cell("redis-replica", "none", "REPLICATED", 1_100 * drift, round));
        }
        return cells;
    }

    @Test
    void goals_ratiosWithinEachRound_judgedAgainstTheirBars() {
        List<Cell> measured = measured();
        String md = Goals.equalDurability(BenchmarkMain.medians(measured), measured);
        assertTrue(md.contains("| embedded uniform 32 thr |") && md.contains("| 0.95 ✓ (0.95–0.95) | 1.10 ✓ (1.10–1.10) | – |"),
                md);
        assertTrue(md.contains("| 0.80 ✗ (0.80–0.80) | 1.10 ✓ (1.10–1.10) | – |"), md);
    }

    @Test
    void table_rowsOfEachSetting_againstTheAsynchronousBackup() {
        List<Cell> measured = measured();
        String md = Report.equalDurability(BenchmarkMain.medians(measured), Map.of());
        assertTrue(md.contains("| embedded | uniform | grant | 32 | sluice-coalesced REPLICATED_ASYNC |"), md);
        assertTrue(md.contains("| client | uniform | grant | 32 | sluice-coalesced EPHEMERAL |"), md);
        assertEquals(2, md.split("\\| redis-replica \\|", -1).length - 1, "Redis with its replica beside each topology");
    }

    @Test
    void noAsynchronousBackupCells_noSections() {
        assertEquals("", Goals.equalDurability(List.of(), List.of()));
        assertEquals("", Report.equalDurability(List.of(), Map.of()));
    }
}
