package dev.sluice.explorer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

final class SettingsTest {

    @Test
    void parse_nothing_defaults() {
        Settings s = Settings.parse();
        assertEquals(100, s.limit());
        assertEquals(60_000, s.windowMillis());
        assertEquals(6, s.segments());
        assertEquals(List.of(TraceKind.values()), s.traces());
        assertEquals(3_600_000, s.durationMillis());
        assertEquals(42, s.seed());
        assertEquals(Path.of("docs", "explorer"), s.out());
        assertEquals(Settings.DEFAULTS, Settings.parse("", " "), "Maven passes an empty explorer.args as blanks");
    }

    @Test
    void parse_everySetting_bothForms() {
        Settings s = Settings.parse("--limit", "50", "--window=10s", "--segments", "5", "--trace", "boundary,clients",
                "--duration=PT10M", "--seed", "-7", "--out", "/tmp/x");
        assertEquals(new Settings(50, 10_000, 5, List.of(TraceKind.BOUNDARY, TraceKind.CLIENTS), 600_000, -7,
                Path.of("/tmp/x")), s);
    }

    @Test
    void parse_durations_inEveryUnit() {
        assertEquals(250, Settings.parse("--window", "250ms", "--segments", "5", "--duration", "10s").windowMillis());
        assertEquals(90_000, Settings.parse("--window", "90s", "--duration", "6m").windowMillis());
        assertEquals(7_200_000, Settings.parse("--window", "2h", "--duration", "1d").windowMillis());
        assertEquals(86_400_000, Settings.parse("--window", "1d", "--duration", "PT96H").windowMillis());
    }

    @Test
    void asArguments_parseBack_sameSettings() {
        Settings s = Settings.parse("--limit", "7", "--window", "1500ms", "--segments", "3", "--trace", "diurnal",
                "--duration", "30s", "--seed", "9");
        assertEquals(s, Settings.parse(s.asArguments().split(" ")));
        assertEquals("--limit 100 --window 1m --segments 6 --duration 1h --trace all --seed 42",
                Settings.DEFAULTS.asArguments());
    }

    @Test
    void parse_limitNotANumber_namesTheValue() {
        assertMessage("--limit must be a whole number, was 'ten'", "--limit", "ten");
    }

    @Test
    void parse_limitOutOfRange_namesTheBound() {
        assertMessage("--limit must be between 1 and 100000 (the sliding log keeps one timestamp per permit), was 0",
                "--limit", "0");
        assertMessage("was 100001", "--limit", "100001");
    }

    @Test
    void parse_badDuration_saysWhatIsExpected() {
        assertMessage("--window must be a duration such as 500ms, 10s, 1m, 2h, 1d or PT1M30S, was '1 minute'",
                "--window", "1 minute");
        assertMessage("--window must be positive", "--window", "0s");
        assertMessage("--duration must be a whole number of milliseconds", "--duration", "PT0.0001S");
    }

    @Test
    void parse_windowAboveTheSpecsLongest_refused() {
        assertMessage("--window must be between 1ms and 366d", "--window", "367d", "--duration", "1468d");
    }

    @Test
    void parse_segmentsNotDividingTheWindow_refused() {
        assertMessage("--segments must be between 1 and 1000 and divide the window (60000 ms) into whole"
                + " milliseconds, was 7", "--segments", "7");
        assertMessage("--segments must be between 1 and 1000, was 0", "--segments", "0");
    }

    @Test
    void parse_unknownTrace_listsTheTraces() {
        assertMessage("--trace must be 'all' or a comma-separated list of steady-half, steady-double, bursty,"
                + " boundary, clients, diurnal, was 'boundary,nope'", "--trace", "boundary,nope");
        assertMessage("--trace names bursty twice", "--trace", "bursty,bursty");
    }

    @Test
    void parse_durationNotWholeWindowsOrTooShort_refused() {
        assertMessage("--duration must be a whole number of windows (1m), from 4 to 100000 of them, was 3m",
                "--duration", "3m");
        assertMessage("was 90s", "--duration", "90s");
    }

    @Test
    void parse_tooMuchWork_refusedWithTheWayOut() {
        assertMessage("use a shorter --duration or a lower --limit", "--limit", "100000", "--duration", "10m");
    }

    @Test
    void parse_unknownRepeatedOrIncompleteSettings_refused() {
        assertMessage("unknown setting --limt; the settings are --limit, --window, --segments, --trace, --duration,"
                + " --seed, --out", "--limt", "5");
        assertMessage("--seed was given twice", "--seed", "1", "--seed", "2");
        assertMessage("--seed needs a value", "--seed");
        assertMessage("unexpected argument 'boundary'; settings are given as --name value", "boundary");
        assertMessage("--out must name a directory, was ''", "--out=");
    }

    private static void assertMessage(String expectedPart, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Settings.parse(args));
        assertTrue(e.getMessage().contains(expectedPart), "expected '" + expectedPart + "' in: " + e.getMessage());
    }
}
