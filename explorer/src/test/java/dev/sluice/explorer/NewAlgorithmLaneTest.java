package dev.sluice.explorer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rate algorithm added in one place becomes a lane: limiter-api's test-only {@code session-window} algorithm,
 * put on the class path by this module's {@code new-algorithm} test execution only (so the committed figures, which
 * the other tests compare, keep the real algorithms' lanes).
 */
final class NewAlgorithmLaneTest {
    private static final Settings SMALL = Settings.parse(new String[] {"--limit", "20", "--window", "10s",
        "--segments", "5", "--duration", "2m", "--trace", "steady-double"});

    /** Elsewhere (a -Dtest that names this class in the default execution) the algorithm is not registered. */
    @BeforeEach
    void onlyInTheNewAlgorithmExecution() {
        assumeTrue(Boolean.getBoolean("sluice.new-algorithm"), "run by the new-algorithm execution");
    }

    @Test
    void testAlgorithm_isALane_withItsLabelSpecAndColour() {
        Algorithm lane = Algorithm.named("session-window");
        assertTrue(Algorithm.values().contains(lane));
        assertEquals("session window", lane.label(SMALL));
        assertEquals("sessionWindow(20, 10s)", lane.factoryCall(SMALL));
        assertNotEquals(Charts.color(Algorithm.SLIDING_LOG), Charts.color(lane));
    }

    @Test
    void testAlgorithm_runsOnTheTraces_andIsInTheTables() {
        List<List<Run>> runs = Explorer.explore(SMALL);
        Run run = runs.get(0).stream().filter(r -> r.algorithm() == Algorithm.named("session-window")).findFirst()
                .orElseThrow();
        assertTrue(run.admitted() > 0 && run.refused() > 0, "admitted " + run.admitted() + ", refused " + run.refused());
        String tables = Tables.document(SMALL, runs);
        assertTrue(tables.contains("| session window † | `sessionWindow(20, 10s)` |"), tables);
    }
}
