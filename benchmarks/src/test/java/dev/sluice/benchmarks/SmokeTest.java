package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The benchmarks' smoke mode, so that {@code mvn verify} proves they compile, fork and run. */
final class SmokeTest {
    @Test
    void smokeMode_runsEveryPathOnce_andWritesTheReport() throws Exception {
        Path out = Path.of("target", "smoke-report.md");
        long start = System.nanoTime();
        String report = BenchmarkMain.smoke(out);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(Files.exists(out), "report written");
        for (String row : new String[] {"| embedded | uniform | grant | 2 | local |", "| embedded | uniform | grant | 2 | sluice |",
                "| embedded | uniform | grant | 2 | raw |", "| sluice (token bucket) | sluice |"}) {
            assertTrue(report.contains(row), () -> "missing row '" + row + "' in\n" + report);
        }
        // Designed for well under 60 s (about 50 s at a load average of 10 on 2 cores); wall time is not
        // asserted, so a busy CI machine cannot make the build flaky.
        System.out.println("smoke mode took " + took);
    }
}
