package dev.sluice.limiter;

import dev.sluice.limiter.algorithm.Catalogue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * One algorithm as everything outside its step sees it: its id on the wire and in stored state, its name as
 * settings write it, its parameters with their units, bounds and defaults, and how a {@link LimitSpec} is built
 * from parameter values and read back. Settings, documentation, IDE metadata and tools list the algorithms
 * from {@link #all()} rather than keeping lists of their own.
 *
 * <p>Every parameter is held as a whole number: a count, a duration held as whole milliseconds, a choice among named
 * values (its index) or a time zone (its code). Named values ({@link #spec(Map)}) take a {@link Duration} for a
 * duration, a whole number for a count, the enum constant (or its name) for a choice and a {@link java.time.ZoneId}
 * (or its id) for a zone, so a bare number is never read as milliseconds by surprise.
 *
 * <p>The values travel on the wire in at most three words; an algorithm with more parameters packs them
 * ({@link Builder#packed}).
 *
 * <pre>{@code
 * AlgorithmDescription bucket = AlgorithmDescription.named("token-bucket");
 * for (AlgorithmDescription.Parameter p : bucket.parameters()) {
 *     System.out.println(p.name() + " " + p.unit() + " " + p.range() + " " + p.defaultValue());
 * }
 * LimitSpec spec = bucket.spec(Map.of("tokenLimit", 20L, "tokensPerPeriod", 5L,
 *         "replenishmentPeriod", Duration.ofSeconds(1)));
 * }</pre>
 */
public final class AlgorithmDescription {
    /** What an algorithm limits. */
    public enum Kind {
        /** Permits over time; a grant is spent, and may be refunded. */
        RATE,
        /** Permits held at once; a lease gives them back on release or expiry. */
        CONCURRENCY,
        /** Several rate specs decided as one ({@link LimitSpec#allOf}); it has components, not parameters. */
        COMPOSITE
    }

    /**
     * How a rate algorithm's decisions relate to the exact rule "at most the limit in any interval one window
     * long", the rule the sliding log enforces.
     */
    public enum Accuracy {
        /** It enforces that rule exactly. */
        EXACT,
        /** It estimates that rule with less state; where it decides otherwise, it errs. */
        APPROXIMATION,
        /** It enforces another rule (aligned windows, a rate with a burst), so deciding otherwise is its design. */
        OTHER_RULE
    }

    /** What a parameter's value counts. */
    public enum Unit {
        /** Permits (or tokens): what requests take. */
        PERMITS("permits"),
        /** Parts a window is divided into. */
        SEGMENTS("segments"),
        /** A duration, held as whole milliseconds; named values give it as a {@link Duration}. */
        MILLISECONDS("ms"),
        /** One of an enum's constants, held as its ordinal; named values give the constant or its name. */
        CHOICE(""),
        /** A time zone, held as a code; named values give a {@link java.time.ZoneId} or its id. */
        TIME_ZONE("");

        private final String word;

        Unit(String word) {
            this.word = word;
        }

        /** The unit as text follows a value with it, e.g. {@code "6 segments"}, {@code "500 ms"}. */
        public String word() {
            return word;
        }
    }

    /**
     * One parameter of a spec.
     *
     * @param name the name the API uses (the factory's argument), e.g. {@code "replenishmentPeriod"}
     * @param setting the name a settings file uses, e.g. {@code "replenishment-period"}
     * @param unit what the value counts
     * @param min the smallest value allowed (milliseconds for a duration)
     * @param max the largest value allowed (milliseconds for a duration)
     * @param defaultValue the value when none is given, or empty when one must be
     * @param summary what it sets, in a few words, for documentation and IDE hints
     * @param choices for a {@link Unit#CHOICE}, the constants it chooses among, in the order of their values;
     *     empty otherwise
     */
    public record Parameter(String name, String setting, Unit unit, long min, long max, OptionalLong defaultValue,
            String summary, List<? extends Enum<?>> choices) {
        /** Checks the bounds and the names. */
        public Parameter {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(setting, "setting");
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(defaultValue, "defaultValue");
            Objects.requireNonNull(summary, "summary");
            choices = List.copyOf(Objects.requireNonNull(choices, "choices"));
            if (min > max) {
                throw new IllegalArgumentException(name + ": min " + min + " is above max " + max);
            }
            if ((unit == Unit.CHOICE) != !choices.isEmpty()
                    || unit == Unit.CHOICE && (min != 0 || max != choices.size() - 1)) {
                throw new IllegalArgumentException(name + ": a choice, and only a choice, has constants, valued 0 to"
                        + " their count - 1; was " + unit + " of " + min + " to " + max + " among " + choices);
            }
            if (defaultValue.isPresent() && (defaultValue.getAsLong() < min || defaultValue.getAsLong() > max)) {
                throw new IllegalArgumentException(name + ": default " + defaultValue.getAsLong() + " is outside "
                        + min + " to " + max);
            }
        }

        /** A parameter without choices (any but {@link Unit#CHOICE}). */
        public Parameter(String name, String setting, Unit unit, long min, long max, OptionalLong defaultValue,
                String summary) {
            this(name, setting, unit, min, max, defaultValue, summary, List.of());
        }

        /** A required choice among the constants of {@code type}, held as their ordinals. */
        public static <E extends Enum<E>> Parameter choice(String name, String setting, Class<E> type, String summary) {
            E[] constants = type.getEnumConstants();
            return new Parameter(name, setting, Unit.CHOICE, 0, constants.length - 1, OptionalLong.empty(), summary,
                    List.of(constants));
        }

        /** A required time zone, held as its code (an offset in seconds, or a region's hash). */
        public static Parameter timeZone(String name, String setting, String summary) {
            return new Parameter(name, setting, Unit.TIME_ZONE, Long.MIN_VALUE, Long.MAX_VALUE, OptionalLong.empty(),
                    summary);
        }

        /** A required count of {@code unit} between {@code min} and {@code max}. */
        public static Parameter count(String name, String setting, Unit unit, long min, long max, String summary) {
            return new Parameter(name, setting, unit, min, max, OptionalLong.empty(), summary);
        }

        /** A required duration between {@code min} and {@code max}. */
        public static Parameter duration(String name, String setting, Duration min, Duration max, String summary) {
            return new Parameter(name, setting, Unit.MILLISECONDS, min.toMillis(), max.toMillis(), OptionalLong.empty(),
                    summary);
        }

        /** This parameter with a default value, in its unit (milliseconds for a duration). */
        public Parameter withDefault(long value) {
            check(value);
            return new Parameter(name, setting, unit, min, max, OptionalLong.of(value), summary, choices);
        }

        /** This choice or time zone with a default value, given as a named value would give it. */
        public Parameter withDefaultOf(Object value) {
            return withDefault(valueOf(value));
        }

        /** Whether the value is a count of {@link Unit#PERMITS} or {@link Unit#SEGMENTS}: a whole number as written. */
        public boolean isCount() {
            return unit == Unit.PERMITS || unit == Unit.SEGMENTS;
        }

        /** The names a {@link Unit#CHOICE} is written with, e.g. {@code [day, week, month, year]}; else empty. */
        public List<String> choiceNames() {
            return choices.stream().map(c -> c.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList();
        }

        /** What a value must be, for messages: {@link #range()}, with the unit of a count. */
        public String expected() {
            return isCount() ? range() + " " + unit.word() : range();
        }

        /** Whether the value is a duration (given as a {@link Duration}, held as milliseconds). */
        public boolean isDuration() {
            return unit == Unit.MILLISECONDS;
        }

        /**
         * The name of the spec record's component that holds the value, which {@link IllegalParameterException}s
         * from the record's validation name: {@code name + "Millis"} for a duration, else {@link #name}.
         */
        public String component() {
            return isDuration() ? name + "Millis" : name;
        }

        /** The allowed values as text, e.g. {@code "1 to 1000000000"} or {@code "PT0.001S to PT8784H"}. */
        public String range() {
            return switch (unit) {
                case MILLISECONDS -> Duration.ofMillis(min) + " to " + Duration.ofMillis(max);
                case CHOICE -> "one of " + choiceNames();
                case TIME_ZONE -> TimeZones.EXPECTED;
                default -> min + " to " + max;
            };
        }

        /**
         * {@code value} if it is within the bounds.
         *
         * @throws IllegalParameterException naming {@link #component()}, the bounds and the value
         */
        public long check(long value) {
            if (unit == Unit.TIME_ZONE) {
                return TimeZones.checkCode(component(), value);
            }
            if (unit == Unit.CHOICE && (value < min || value > max)) {
                throw new IllegalParameterException(component(), name + " must be " + range() + " (as a value: 0 to "
                        + max + "), was " + value);
            }
            return Checks.checkRange(component(), value, min, max);
        }

        /**
         * The value a named value stands for: a {@link Duration} for a duration (whole milliseconds), a whole
         * number ({@link Long}, {@link Integer}, {@link Short}, {@link Byte}) for a count, checked against the
         * bounds.
         *
         * @throws IllegalParameterException naming {@link #name}, what was expected and the value
         */
        public long valueOf(Object value) {
            Objects.requireNonNull(value, name);
            if (isDuration()) {
                if (!(value instanceof Duration d)) {
                    throw new IllegalParameterException(name, name + " must be a duration (java.time.Duration), was "
                            + value + " (" + value.getClass().getSimpleName() + ")");
                }
                return Checks.toMillis(name, d, min, max);
            }
            if (unit == Unit.TIME_ZONE) {
                return TimeZones.code(name, TimeZones.parse(name, value));
            }
            if (unit == Unit.CHOICE) {
                int at = choices.indexOf(value);
                if (at < 0 && value instanceof String text) {
                    at = choiceNames().indexOf(text.strip().toLowerCase(Locale.ROOT).replace('_', '-'));
                }
                if (at < 0) {
                    throw new IllegalParameterException(name, name + " must be " + range() + ", was " + value);
                }
                return at;
            }
            if (!(value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte)) {
                throw new IllegalParameterException(name, name + " must be a whole number of " + unit.word()
                        + ", was " + value + " (" + value.getClass().getSimpleName() + ")");
            }
            return Checks.checkRange(name, ((Number) value).longValue(), min, max);
        }

        /**
         * A value as a named value: a {@link Duration} for a duration, a {@link Long} for a count, the constant for a
         * choice, a {@link java.time.ZoneId} for a time zone.
         *
         * @throws IllegalStateException for a zone this node's tz database cannot name
         */
        public Object named(long value) {
            return switch (unit) {
                case MILLISECONDS -> Duration.ofMillis(value);
                case CHOICE -> choices.get((int) check(value));
                case TIME_ZONE -> TimeZones.zone(component(), value);
                default -> value;
            };
        }
    }

    /**
     * How a rate algorithm is set to admit {@code limit} permits per window: its parameter values in order.
     * Parameters the form leaves to the caller ({@link #rateChoices()}) are read from {@code choice}.
     */
    @FunctionalInterface
    public interface RateForm {
        /** The values, in the order of {@link #parameters()}. */
        long[] values(long limit, long windowMillis, ToLongFunction<String> choice);
    }

    private final int id;
    private final String name;
    private final String label;
    private final String summary;
    private final Kind kind;
    private final Accuracy accuracy;
    private final Class<? extends LimitSpec> specType;
    private final List<Parameter> parameters;
    private final Function<long[], ? extends LimitSpec> create;
    private final Function<LimitSpec, long[]> read;
    private final RateForm rateForm;
    private final List<Parameter> rateChoices;
    private final int wireWords;
    private final UnaryOperator<long[]> pack;
    private final UnaryOperator<long[]> unpack;

    private AlgorithmDescription(Builder<?> b) {
        this.id = b.id;
        this.name = b.name;
        this.label = b.label;
        this.summary = b.summary;
        this.kind = b.kind;
        this.accuracy = b.accuracy;
        this.specType = b.specType;
        this.parameters = List.copyOf(b.parameters);
        this.create = b.create;
        this.read = b.read;
        this.rateForm = b.rateForm;
        this.rateChoices = b.rateChoices.stream().map(this::parameter).map(Optional::orElseThrow).toList();
        this.wireWords = b.pack == null ? parameters.size() : b.wireWords;
        this.pack = b.pack;
        this.unpack = b.unpack;
    }

    /** Every algorithm, in the order of their ids. */
    public static List<AlgorithmDescription> all() {
        return Catalogue.descriptions();
    }

    /**
     * The algorithm settings call {@code name}, e.g. {@code "token-bucket"}.
     *
     * @throws IllegalArgumentException naming the value and every known name
     */
    public static AlgorithmDescription named(String name) {
        return Catalogue.named(name).description();
    }

    /**
     * The algorithm that enforces {@code spec}.
     *
     * @throws IllegalArgumentException if no algorithm describes the spec's type
     */
    public static AlgorithmDescription of(LimitSpec spec) {
        return of(spec.getClass());
    }

    /**
     * The algorithm whose specs are {@code specType}.
     *
     * @throws IllegalArgumentException if no algorithm describes that type
     */
    public static AlgorithmDescription of(Class<? extends LimitSpec> specType) {
        return Catalogue.describing(specType).description();
    }

    /** The stable id that names the algorithm on the wire and in stored state; never reused. */
    public int id() {
        return id;
    }

    /** The name settings write, e.g. {@code "token-bucket"}; also {@link LimitSpec#algorithm()}. */
    public String name() {
        return name;
    }

    /** The name in prose, e.g. {@code "token bucket"}, {@code "GCRA"}. */
    public String label() {
        return label;
    }

    /** The admission rule in one line. */
    public String summary() {
        return summary;
    }

    /** What the algorithm limits. */
    public Kind kind() {
        return kind;
    }

    /** For a rate algorithm, how it relates to the exact sliding-window rule; {@link Accuracy#OTHER_RULE} otherwise. */
    public Accuracy accuracy() {
        return accuracy;
    }

    /** The record its specs are. */
    public Class<? extends LimitSpec> specType() {
        return specType;
    }

    /** The name of its factory on {@link LimitSpec}, e.g. {@code "tokenBucket"}: the name in camel case. */
    public String factoryName() {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (char c : name.toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }

    /** Its parameters, in the order of the spec record's components; empty for a composite. */
    public List<Parameter> parameters() {
        return parameters;
    }

    /** The parameter the API calls {@code name}, if there is one. */
    public Optional<Parameter> parameter(String name) {
        return parameters.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /**
     * Checks values against the parameters' bounds; a spec record's validation runs this first, then its own
     * rules across parameters.
     *
     * @param values in the order of {@link #parameters()}, durations in milliseconds
     * @throws IllegalParameterException naming the record component, the bounds and the value
     */
    public void check(long... values) {
        if (values.length != parameters.size()) {
            throw new IllegalArgumentException(name + " takes " + parameters.size() + " values " + names()
                    + ", was given " + values.length);
        }
        for (int i = 0; i < values.length; i++) {
            parameters.get(i).check(values[i]);
        }
    }

    /**
     * The spec of these values.
     *
     * @param values in the order of {@link #parameters()}, durations in milliseconds
     * @throws IllegalArgumentException naming the value and what was expected
     * @throws UnsupportedOperationException for a composite, which is built from specs ({@link LimitSpec#allOf})
     */
    public LimitSpec spec(long... values) {
        requireParameters();
        check(values);
        return create.apply(values.clone());
    }

    /**
     * The spec of these named values: a {@link Duration} for a duration, a whole number for a count; a parameter
     * left out takes its default.
     *
     * @throws IllegalArgumentException naming the value and what was expected, a missing parameter, or an
     *     unknown name with the names there are
     * @throws UnsupportedOperationException for a composite, which is built from specs ({@link LimitSpec#allOf})
     */
    public LimitSpec spec(Map<String, ?> values) {
        requireParameters();
        Objects.requireNonNull(values, "values");
        Set<String> known = parameters.stream().map(Parameter::name).collect(Collectors.toSet());
        for (String given : values.keySet()) {
            if (!known.contains(given)) {
                throw new IllegalArgumentException("unknown parameter '" + given + "' for " + name + "; expected "
                        + names());
            }
        }
        long[] raw = new long[parameters.size()];
        for (int i = 0; i < raw.length; i++) {
            Parameter p = parameters.get(i);
            Object value = values.get(p.name());
            if (value != null) {
                raw[i] = p.valueOf(value);
            } else if (p.defaultValue().isPresent()) {
                raw[i] = p.defaultValue().getAsLong();
            } else {
                throw new IllegalParameterException(p.name(), "missing parameter " + p.name() + " of " + name
                        + "; expected " + p.expected());
            }
        }
        return create.apply(raw);
    }

    /**
     * The values of {@code spec}, in the order of {@link #parameters()}, durations in milliseconds.
     *
     * @throws IllegalArgumentException if the spec is not of this algorithm
     */
    public long[] values(LimitSpec spec) {
        return read.apply(own(spec));
    }

    /** How many words its values take on the wire: one per parameter, fewer when packed ({@link Builder#packed}). */
    public int wireWords() {
        return wireWords;
    }

    /** The values of {@code spec} as they travel: {@link #values}, packed into {@link #wireWords()} words. */
    public long[] wireValues(LimitSpec spec) {
        long[] values = values(spec);
        return pack == null ? values : pack.apply(values);
    }

    /**
     * The spec of values as they travel ({@link #wireValues}), validated as {@link #spec(long...)} validates.
     *
     * @throws IllegalArgumentException naming the value and what was expected
     */
    public LimitSpec fromWire(long... words) {
        if (words.length != wireWords) {
            throw new IllegalArgumentException(name + " travels in " + wireWords + " words, was given " + words.length);
        }
        return spec(unpack == null ? words : unpack.apply(words.clone()));
    }

    /** The values of {@code spec} by name, as {@link Parameter#named} gives each (a {@link Duration}, a {@link Long}, ...). */
    public Map<String, Object> namedValues(LimitSpec spec) {
        long[] values = values(spec);
        Map<String, Object> named = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            named.put(parameters.get(i).name(), parameters.get(i).named(values[i]));
        }
        return Collections.unmodifiableMap(named);
    }

    /** The spec as its factory call, e.g. {@code tokenBucket(100, 1, PT0.6S)}; durations shown by {@code duration}. */
    public String factoryCall(LimitSpec spec, Function<Duration, String> duration) {
        long[] values = values(spec);
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            Object v = parameters.get(i).named(values[i]);
            shown.add(v instanceof Duration d ? duration.apply(d) : String.valueOf(v));
        }
        return factoryName() + "(" + String.join(", ", shown) + ")";
    }

    /** Whether it can be set to a limit per window ({@link #rateSpec}): a rate algorithm. */
    public boolean hasRateForm() {
        return rateForm != null;
    }

    /** The parameters a {@link #rateSpec} leaves to the caller, such as a sliding window's segments. */
    public List<Parameter> rateChoices() {
        return rateChoices;
    }

    /**
     * The spec of this algorithm that admits {@code limit} permits per {@code window}, e.g. a token bucket of
     * {@code limit} tokens refilled at that rate.
     *
     * @param choices values of {@link #rateChoices()} by name; one missing takes its default; names that are not
     *     among them are ignored, so one map can serve every algorithm
     * @throws UnsupportedOperationException if the algorithm has no rate form
     * @throws IllegalArgumentException naming the value and what was expected
     */
    public LimitSpec rateSpec(long limit, Duration window, Map<String, ?> choices) {
        if (rateForm == null) {
            throw new UnsupportedOperationException(name + (kind == Kind.RATE ? " has no form of a limit per window of"
                    + " any length" : " is not a rate; it has no form of a limit per window"));
        }
        long windowMillis = Checks.toMillis("window", window, 1, LimitSpec.MAX_DURATION.toMillis());
        return spec(rateForm.values(limit, windowMillis, choice -> {
            Parameter p = rateChoices.stream().filter(c -> c.name().equals(choice)).findFirst()
                    .orElseThrow(() -> new IllegalStateException(name + "'s rate form asks for " + choice
                            + ", which is not among its rate choices " + rateChoices));
            Object value = choices.get(choice);
            if (value == null) {
                return p.defaultValue().orElseThrow(() -> new IllegalParameterException(choice, "missing parameter "
                        + choice + " of " + name + "; expected " + p.range()));
            }
            return p.valueOf(value);
        }));
    }

    /**
     * Its row of a Markdown table of {@link #markdownTable()}'s columns: name, factory, parameters, rule.
     */
    public String markdownRow() {
        String args = parameters.stream().map(Parameter::name).collect(Collectors.joining(", "));
        String params = parameters.isEmpty() ? "2 to " + LimitSpec.AllOf.MAX_COMPONENTS + " rate specs"
                : parameters.stream().map(AlgorithmDescription::markdown).collect(Collectors.joining("; "));
        return "| `" + name + "` | `" + factoryName() + "(" + (kind == Kind.COMPOSITE ? "spec, spec, ..." : args)
                + ")` | " + params + " | " + summary + " |";
    }

    /** A Markdown table of every algorithm: a header and {@link #markdownRow()} of each, one line each. */
    public static String markdownTable() {
        StringBuilder table = new StringBuilder("| algorithm | spec | parameters | admission rule |\n|---|---|---|---|\n");
        all().forEach(a -> table.append(a.markdownRow()).append('\n'));
        return table.toString();
    }

    private static String markdown(Parameter p) {
        String bounds = p.isDuration() ? human(p.min()) + " to " + human(p.max())
                : p.isCount() ? String.format(Locale.ROOT, "%,d to %,d %s", p.min(), p.max(), p.unit().word())
                : p.range();
        String fallback = p.defaultValue().isEmpty() ? ""
                : ", default " + (p.isDuration() ? human(p.defaultValue().getAsLong())
                        : p.unit() == Unit.CHOICE ? p.choiceNames().get((int) p.defaultValue().getAsLong())
                        : p.unit() == Unit.TIME_ZONE && p.defaultValue().getAsLong() == 0 ? "UTC"
                        : p.named(p.defaultValue().getAsLong()));
        return "`" + p.name() + "`: " + p.summary() + ", " + bounds + fallback;
    }

    /** Milliseconds in the largest unit that divides them: {@code 30 s}, {@code 366 d}. */
    private static String human(long millis) {
        long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
        String[] units = {"d", "h", "min", "s", "ms"};
        for (int i = 0; i < sizes.length; i++) {
            if (millis % sizes[i] == 0 && millis >= sizes[i]) {
                return millis / sizes[i] + " " + units[i];
            }
        }
        return millis + " ms";
    }

    private List<String> names() {
        return parameters.stream().map(Parameter::name).toList();
    }

    private void requireParameters() {
        if (create == null) {
            throw new UnsupportedOperationException(name + " is built from specs (LimitSpec." + factoryName()
                    + "), not from values");
        }
    }

    private LimitSpec own(LimitSpec spec) {
        if (!specType.isInstance(spec)) {
            throw new IllegalArgumentException("not a " + name + " spec: " + spec);
        }
        if (read == null) {
            throw new UnsupportedOperationException(name + " has components, not values: " + spec);
        }
        return spec;
    }

    @Override
    public String toString() {
        return name + " (id " + id + ")";
    }

    /**
     * Starts the description of an algorithm.
     *
     * @param id its stable id, 1 to 255; never reuse one
     * @param name its name in settings, lower case words joined by {@code -}
     * @param specType the record its specs are
     */
    public static <S extends LimitSpec> Builder<S> builder(int id, String name, Class<S> specType) {
        return new Builder<>(id, name, specType);
    }

    /** Collects a description; {@link #build()} checks it is whole. */
    public static final class Builder<S extends LimitSpec> {
        private final int id;
        private final String name;
        private final Class<S> specType;
        private String label;
        private String summary;
        private Kind kind;
        private Accuracy accuracy = Accuracy.OTHER_RULE;
        private final List<Parameter> parameters = new ArrayList<>();
        private Function<long[], ? extends LimitSpec> create;
        private Function<LimitSpec, long[]> read;
        private RateForm rateForm;
        private List<String> rateChoices = List.of();
        private int wireWords;
        private UnaryOperator<long[]> pack;
        private UnaryOperator<long[]> unpack;

        private Builder(int id, String name, Class<S> specType) {
            if (id < 1 || id > 255) {
                throw new IllegalArgumentException("an algorithm id must be between 1 and 255, was " + id);
            }
            if (!Objects.requireNonNull(name, "name").matches("[a-z][a-z0-9]*(-[a-z0-9]+)*")) {
                throw new IllegalArgumentException("an algorithm name is lower case words joined by '-', was '"
                        + name + "'");
            }
            this.id = id;
            this.name = name;
            this.specType = Objects.requireNonNull(specType, "specType");
            this.label = name.replace('-', ' ');
        }

        /** The name in prose; default the name with spaces for dashes. */
        public Builder<S> label(String label) {
            this.label = Objects.requireNonNull(label, "label");
            return this;
        }

        /** The admission rule in one line. */
        public Builder<S> summary(String summary) {
            this.summary = Objects.requireNonNull(summary, "summary");
            return this;
        }

        /** The parameters, in the order of the spec record's components. */
        public Builder<S> parameters(Parameter... parameters) {
            this.parameters.addAll(Arrays.asList(parameters));
            return this;
        }

        /**
         * How a spec is built from values and read back, both in the order of the parameters.
         *
         * @param create the record's constructor over values already within bounds
         * @param read the record's values
         */
        public Builder<S> factory(Function<long[], S> create, Function<S, long[]> read) {
            this.create = Objects.requireNonNull(create, "create");
            Objects.requireNonNull(read, "read");
            this.read = spec -> read.apply(specType.cast(spec));
            return this;
        }

        /**
         * A rate algorithm, and how it is set to a limit per window.
         *
         * @param choices the parameters the form leaves to the caller
         */
        public Builder<S> rate(Accuracy accuracy, RateForm form, String... choices) {
            this.kind = Kind.RATE;
            this.accuracy = Objects.requireNonNull(accuracy, "accuracy");
            this.rateForm = Objects.requireNonNull(form, "form");
            this.rateChoices = List.of(choices);
            return this;
        }

        /**
         * A rate algorithm that has no form of a limit per window of any length (its windows are not a length it
         * chooses), so it is no lane of a comparison of rates; it is a component of a composite like any rate.
         */
        public Builder<S> rate(Accuracy accuracy) {
            this.kind = Kind.RATE;
            this.accuracy = Objects.requireNonNull(accuracy, "accuracy");
            return this;
        }

        /**
         * Values that travel in fewer words than there are parameters, for an algorithm of more parameters than the
         * wire's words: {@code pack} takes the values in the order of the parameters and returns {@code words}
         * words, {@code unpack} the reverse.
         */
        public Builder<S> packed(int words, UnaryOperator<long[]> pack, UnaryOperator<long[]> unpack) {
            if (words < 1) {
                throw new IllegalArgumentException("packed values take at least 1 word, was " + words);
            }
            this.wireWords = words;
            this.pack = Objects.requireNonNull(pack, "pack");
            this.unpack = Objects.requireNonNull(unpack, "unpack");
            return this;
        }

        /** An algorithm that limits permits held at once. */
        public Builder<S> concurrency() {
            this.kind = Kind.CONCURRENCY;
            return this;
        }

        /** An algorithm made of other specs, built by its own factory. */
        public Builder<S> composite() {
            this.kind = Kind.COMPOSITE;
            return this;
        }

        /**
         * The description.
         *
         * @throws IllegalStateException naming what is missing or inconsistent
         */
        public AlgorithmDescription build() {
            String what = "the description of " + name + " ";
            if (kind == null) {
                throw new IllegalStateException(what + "says neither rate, concurrency nor composite");
            }
            if (summary == null) {
                throw new IllegalStateException(what + "has no summary");
            }
            if ((kind == Kind.COMPOSITE) != (create == null)) {
                throw new IllegalStateException(what + (create == null ? "has no factory" : "is a composite, built"
                        + " from specs, yet has a factory of values"));
            }
            if ((kind == Kind.COMPOSITE) != parameters.isEmpty()) {
                throw new IllegalStateException(what + "must have parameters unless it is a composite");
            }
            Set<String> names = parameters.stream().map(Parameter::name).collect(Collectors.toSet());
            Set<String> settings = parameters.stream().map(Parameter::setting).collect(Collectors.toSet());
            if (names.size() != parameters.size() || settings.size() != parameters.size()) {
                throw new IllegalStateException(what + "names a parameter twice: " + parameters);
            }
            if (!names.containsAll(rateChoices)) {
                throw new IllegalStateException(what + "leaves " + rateChoices + " to the caller, not all of them"
                        + " parameters " + names);
            }
            return new AlgorithmDescription(this);
        }
    }
}
