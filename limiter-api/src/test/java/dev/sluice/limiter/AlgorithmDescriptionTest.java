package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.AlgorithmDescription.Parameter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

final class AlgorithmDescriptionTest {
    private static final Duration SECOND = Duration.ofSeconds(1);

    /** One spec of every algorithm built in, by name. */
    private static final Map<String, LimitSpec> EXAMPLES = Map.of(
            "fixed-window", LimitSpec.fixedWindow(10, SECOND),
            "sliding-window", LimitSpec.slidingWindow(10, SECOND, 4),
            "sliding-log", LimitSpec.slidingLog(10, SECOND),
            "sliding-counter", LimitSpec.slidingCounter(10, SECOND),
            "token-bucket", LimitSpec.tokenBucket(20, 5, Duration.ofSeconds(10)),
            "gcra", LimitSpec.gcra(5, SECOND, 3),
            "concurrency", LimitSpec.concurrency(4, Duration.ofMillis(500)),
            "calendar-window", LimitSpec.calendarWindow(10, CalendarPeriod.WEEK, ZoneId.of("Europe/Paris"),
                    DayOfWeek.SUNDAY),
            "all-of", LimitSpec.allOf(LimitSpec.fixedWindow(10, SECOND), LimitSpec.gcra(5, SECOND, 3)));

    @Test
    void all_listsTheBuiltInAlgorithmsInTheOrderOfTheirIds() {
        List<AlgorithmDescription> all = AlgorithmDescription.all();
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i - 1).id() < all.get(i).id(), all.toString());
        }
        assertEquals(all.stream().map(AlgorithmDescription::name).toList(), LimitSpec.ALGORITHMS);
        // The ids states and the wire already carry: never renumbered.
        List<String> builtIn = List.of(LimitSpec.FIXED_WINDOW, LimitSpec.SLIDING_WINDOW, LimitSpec.SLIDING_LOG,
                LimitSpec.SLIDING_COUNTER, LimitSpec.TOKEN_BUCKET, LimitSpec.GCRA, LimitSpec.CONCURRENCY, LimitSpec.ALL_OF);
        for (String name : builtIn) {
            assertEquals(builtIn.indexOf(name) + 1, AlgorithmDescription.named(name).id(), name);
        }
    }

    @Test
    void of_everySpec_isDescribedByItsAlgorithm() {
        EXAMPLES.forEach((name, spec) -> {
            assertEquals(name, AlgorithmDescription.of(spec).name());
            assertEquals(spec.getClass(), AlgorithmDescription.named(name).specType());
            assertEquals(name, spec.algorithm());
        });
    }

    @Test
    void values_readBackAndBuildTheSameSpec() {
        EXAMPLES.forEach((name, spec) -> {
            AlgorithmDescription d = AlgorithmDescription.of(spec);
            if (d.kind() == AlgorithmDescription.Kind.COMPOSITE) {
                assertThrows(UnsupportedOperationException.class, () -> d.spec(1, 2));
                return;
            }
            assertEquals(spec, d.spec(d.values(spec)), name);
            assertEquals(spec, d.spec(d.namedValues(spec)), name);
            assertEquals(d.parameters().size(), d.values(spec).length, name);
        });
    }

    @Test
    void spec_namedValues_buildWhatTheFactoryBuilds() {
        LimitSpec bucket = AlgorithmDescription.named("token-bucket").spec(Map.of("tokenLimit", 20L,
                "tokensPerPeriod", 5, "replenishmentPeriod", Duration.ofSeconds(10)));
        assertEquals(LimitSpec.tokenBucket(20, 5, Duration.ofSeconds(10)), bucket);
        assertArrayEquals(new long[] {20, 5, 10_000}, AlgorithmDescription.of(bucket).values(bucket));
    }

    @Test
    void spec_parameterLeftOut_takesItsDefault_orIsMissing() {
        AlgorithmDescription concurrency = AlgorithmDescription.named("concurrency");
        assertEquals(LimitSpec.concurrency(3), concurrency.spec(Map.of("permitLimit", 3)));
        Parameter lease = concurrency.parameter("leaseDuration").orElseThrow();
        assertEquals(OptionalLong.of(30_000), lease.defaultValue());
        assertEquals(AlgorithmDescription.Unit.MILLISECONDS, lease.unit());
        assertEquals("lease-duration", lease.setting());
        IllegalParameterException e = assertThrows(IllegalParameterException.class,
                () -> AlgorithmDescription.named("fixed-window").spec(Map.of("permitLimit", 3)));
        assertEquals("window", e.parameter());
        assertTrue(e.getMessage().contains("missing parameter window of fixed-window"), e.getMessage());
    }

    @Test
    void spec_badNamedValues_nameTheValueAndWhatWasExpected() {
        AlgorithmDescription fixed = AlgorithmDescription.named("fixed-window");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> fixed.spec(Map.of("permitLimit", 3, "window", SECOND, "segments", 4)));
        assertTrue(unknown.getMessage().contains("unknown parameter 'segments' for fixed-window; expected"
                + " [permitLimit, window]"), unknown.getMessage());
        IllegalParameterException bareNumber = assertThrows(IllegalParameterException.class,
                () -> fixed.spec(Map.of("permitLimit", 3, "window", 1000)));
        assertTrue(bareNumber.getMessage().contains("window must be a duration"), bareNumber.getMessage());
        IllegalParameterException fraction = assertThrows(IllegalParameterException.class,
                () -> fixed.spec(Map.of("permitLimit", 2.5, "window", SECOND)));
        assertTrue(fraction.getMessage().contains("permitLimit must be a whole number of permits, was 2.5"),
                fraction.getMessage());
        IllegalParameterException range = assertThrows(IllegalParameterException.class,
                () -> fixed.spec(Map.of("permitLimit", 0, "window", SECOND)));
        assertEquals("permitLimit must be between 1 and 1000000000, was 0", range.getMessage());
        IllegalParameterException tooLong = assertThrows(IllegalParameterException.class,
                () -> fixed.spec(Map.of("permitLimit", 1, "window", Duration.ofDays(367))));
        assertTrue(tooLong.getMessage().startsWith("window must be between PT0.001S and PT8784H"), tooLong.getMessage());
    }

    @Test
    void named_unknown_listsTheNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AlgorithmDescription.named("leaky-bucket"));
        assertTrue(e.getMessage().startsWith("unknown algorithm 'leaky-bucket'; expected one of [fixed-window,"),
                e.getMessage());
    }

    @Test
    void parameters_carryUnitsBoundsAndSettings() {
        AlgorithmDescription window = AlgorithmDescription.named("sliding-window");
        assertEquals(List.of("permitLimit", "window", "segmentsPerWindow"),
                window.parameters().stream().map(Parameter::name).toList());
        assertEquals(List.of("permit-limit", "window", "segments"),
                window.parameters().stream().map(Parameter::setting).toList());
        Parameter segments = window.parameter("segmentsPerWindow").orElseThrow();
        assertEquals(1, segments.min());
        assertEquals(LimitSpec.SlidingWindow.MAX_SEGMENTS, segments.max());
        assertEquals("windowMillis", window.parameter("window").orElseThrow().component());
        assertEquals(LimitSpec.MAX_LOG_LIMIT, AlgorithmDescription.named("sliding-log").parameter("permitLimit")
                .orElseThrow().max());
        assertEquals("GCRA", AlgorithmDescription.named("gcra").label());
        assertEquals("tokenBucket", AlgorithmDescription.named("token-bucket").factoryName());
    }

    @Test
    void rateSpec_admitsTheLimitPerWindow() {
        Duration minute = Duration.ofMinutes(1);
        Map<String, Integer> choices = Map.of("segmentsPerWindow", 6);
        assertEquals(LimitSpec.tokenBucket(100, 1, Duration.ofMillis(600)),
                AlgorithmDescription.named("token-bucket").rateSpec(100, minute, choices));
        assertEquals(LimitSpec.slidingWindow(100, minute, 6),
                AlgorithmDescription.named("sliding-window").rateSpec(100, minute, choices));
        assertEquals(LimitSpec.gcra(100, minute, 100), AlgorithmDescription.named("gcra").rateSpec(100, minute, choices));
        assertFalse(AlgorithmDescription.named("concurrency").hasRateForm());
        assertThrows(UnsupportedOperationException.class,
                () -> AlgorithmDescription.named("all-of").rateSpec(100, minute, choices));
    }

    @Test
    void markdownTable_hasARowPerAlgorithm() {
        String table = AlgorithmDescription.markdownTable();
        for (AlgorithmDescription d : AlgorithmDescription.all()) {
            assertTrue(table.contains("\n" + d.markdownRow() + "\n"), d.name());
        }
        assertTrue(table.contains("| `token-bucket` | `tokenBucket(tokenLimit, tokensPerPeriod, replenishmentPeriod)` |"),
                table);
        assertTrue(table.contains("30 ms to 366 d, default 30 s"), table);
    }

    /** The module path reads module-info's provides, the class path the services file: both list every one. */
    @Test
    void registrations_moduleInfoAndServicesFile_listTheSameAlgorithms() throws IOException {
        String moduleInfo = Files.readString(Path.of("src/main/java/module-info.java"));
        Matcher provides = Pattern.compile("provides dev\\.sluice\\.limiter\\.algorithm\\.Algorithm with([^;]*);")
                .matcher(moduleInfo);
        assertTrue(provides.find(), "module-info provides the algorithms");
        List<String> provided = Pattern.compile("[\\s,]+").splitAsStream(provides.group(1).strip()).toList();
        List<String> listed = Files.readAllLines(
                Path.of("src/main/resources/META-INF/services/dev.sluice.limiter.algorithm.Algorithm")).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertEquals(provided, listed);
    }
}
