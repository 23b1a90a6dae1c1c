package dev.sluice.explorer;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The generated traffic the algorithms are compared on. Rates are in limits per window ({@code 2} = twice what
 * the limit allows). Every trace is a pure function of the settings and the seed: {@link Random}, whose
 * algorithm the Java specification fixes, and {@link StrictMath}, whose results do not vary by platform or JIT,
 * so a seed gives the same arrivals on every JVM.
 */
public enum TraceKind {
    /** Poisson arrivals at half the limit's rate. */
    STEADY_HALF("steady-half", "steady at 0.5× the limit", "Poisson arrivals at a constant rate") {
        @Override void generate(Generator g) {
            g.poisson(0, 0.5, g.start, g.end);
        }
    },
    /** Poisson arrivals at twice the limit's rate. */
    STEADY_DOUBLE("steady-double", "steady at 2× the limit", "Poisson arrivals at a constant rate") {
        @Override void generate(Generator g) {
            g.poisson(0, 2, g.start, g.end);
        }
    },
    /** On/off: Poisson bursts at 4× the limit, on for half a window and off for 1.5 windows on average. */
    BURSTY("bursty", "bursty, on and off", "Poisson bursts at 4× the limit, on for 0.5 and off for 1.5 windows on"
            + " average (exponential lengths), 1× the limit overall") {
        @Override void generate(Generator g) {
            double t = g.start;
            while (t < g.end) {
                t += g.exponential(1.5 * g.window);
                double on = g.exponential(0.5 * g.window);
                g.poisson(0, 4, t, Math.min(t + on, g.end));
                t += on;
            }
        }
    },
    /**
     * A limit's worth of requests in the last tenth of a window and another in the first tenth of the next,
     * every {@value Shape#BOUNDARY_EVERY} windows, nothing in between.
     */
    BOUNDARY("boundary", "a burst straddling a window boundary", "1× the limit in the last tenth of a window and"
            + " 1× in the first tenth of the next, every " + Shape.BOUNDARY_EVERY + " windows") {
        @Override void generate(Generator g) {
            long window = g.window;
            long span = Math.max(1, window / 10);
            // The first boundary has a quiet window before it, so the burst before it starts from nothing.
            long boundary = (Math.floorDiv(g.start - 1, window) + 2) * window;
            for (; boundary + span <= g.end; boundary += Shape.BOUNDARY_EVERY * window) {
                for (long i = 0; i < g.limit; i++) {
                    g.at(0, boundary - span + (long) (g.random.nextDouble() * span));
                    g.at(0, boundary + (long) (g.random.nextDouble() * span));
                }
            }
        }
    },
    /** {@value Shape#SMALL_CLIENTS} clients at 0.25× the limit each and one heavy client at 3×, each on its own key. */
    CLIENTS("clients", "many small clients and one heavy one", Shape.SMALL_CLIENTS + " clients at 0.25× the limit"
            + " each and one (key 0) at 3×, each on its own key with its own limit") {
        @Override void generate(Generator g) {
            g.poisson(0, 3, g.start, g.end);
            for (int client = 1; client <= Shape.SMALL_CLIENTS; client++) {
                g.poisson(client, 0.25, g.start, g.end);
            }
        }
    },
    /** Poisson arrivals whose rate follows a day, compressed into the trace: 0.15× at night, 1.85× at noon. */
    DIURNAL("diurnal", "real-looking: a day of Poisson arrivals", "one day compressed into the run, the rate from"
            + " 0.15× the limit at night to 1.85× at the midday peak, 1× overall") {
        @Override void generate(Generator g) {
            double peak = 1.85;
            double length = g.end - g.start;
            // Thinning (Lewis and Shedler): candidates at the peak rate, each kept with probability rate(t) / peak.
            double t = g.start;
            while (true) {
                t += g.exponential(g.window / (peak * g.limit));
                if (t >= g.end) {
                    return;
                }
                double s = StrictMath.sin(StrictMath.PI * (t - g.start) / length);
                double rate = 0.15 + 1.7 * s * s;
                if (g.random.nextDouble() * peak < rate) {
                    g.at(0, (long) t);
                }
            }
        }
    };

    /** The most limits per window any trace asks for (many clients: 3 + 20 × 0.25). */
    static final long MOST_LIMITS_PER_WINDOW = 8;
    /** Simulated time starts at 2026-01-01T00:00Z; windows are aligned to the epoch, as the algorithms align them. */
    static final long START = 1_767_225_600_000L;

    private final String id;
    private final String title;
    private final String description;

    TraceKind(String id, String title, String description) {
        this.id = id;
        this.title = title;
        this.description = description;
    }

    /** The trace's name on the command line and in file names, e.g. {@code boundary}. */
    public String id() {
        return id;
    }

    /** What the trace is, in a few words. */
    public String title() {
        return title;
    }

    /** How the trace is made, in one line. */
    public String description() {
        return description;
    }

    /** Generates this trace: arrivals of one permit each, in time order, from {@link #START}. */
    Trace generate(long limit, long windowMillis, long durationMillis, long seed) {
        Generator g = new Generator(new Random(seed ^ (0x9E37_79B9_7F4A_7C15L * (ordinal() + 1))), limit, windowMillis,
                START, START + durationMillis);
        generate(g);
        return g.toTrace(this, seed);
    }

    abstract void generate(Generator g);

    static TraceKind byId(String id) {
        for (TraceKind kind : values()) {
            if (kind.id.equals(id)) {
                return kind;
            }
        }
        return null;
    }

    static String names() {
        return Arrays.stream(values()).map(TraceKind::id).collect(Collectors.joining(", "));
    }

    /** The traces' shape; a class of its own, since an enum's constants cannot refer to its static fields. */
    static final class Shape {
        /** The boundary trace's bursts come every this many windows. */
        static final int BOUNDARY_EVERY = 4;
        /** The many-clients trace's small clients; with the heavy one, keys 0 to this. */
        static final int SMALL_CLIENTS = 20;

        private Shape() {}
    }

    /** Collects arrivals as {@code (time - start) << 6 | client}, so one sort orders them by time, then client. */
    static final class Generator {
        private static final int CLIENT_BITS = 6;

        final Random random;
        final long limit;
        final long window;
        final long start;
        final long end;
        private long[] encoded = new long[1024];
        private int size;
        private int clients = 1;

        Generator(Random random, long limit, long window, long start, long end) {
            this.random = random;
            this.limit = limit;
            this.window = window;
            this.start = start;
            this.end = end;
        }

        /** An exponentially distributed length with the given mean. */
        double exponential(double mean) {
            return -mean * StrictMath.log(1 - random.nextDouble());
        }

        /** Poisson arrivals for {@code client} at {@code limits} limits per window over {@code [from, to)}. */
        void poisson(int client, double limits, double from, double to) {
            double mean = window / (limits * limit);
            double t = from + exponential(mean);
            for (; t < to; t += exponential(mean)) {
                at(client, (long) t);
            }
        }

        void at(int client, long time) {
            if (size == encoded.length) {
                encoded = Arrays.copyOf(encoded, size * 2);
            }
            encoded[size++] = ((time - start) << CLIENT_BITS) | client;
            clients = Math.max(clients, client + 1);
        }

        Trace toTrace(TraceKind kind, long seed) {
            long[] sorted = Arrays.copyOf(encoded, size);
            Arrays.sort(sorted);
            long[] times = new long[size];
            int[] keys = new int[size];
            for (int i = 0; i < size; i++) {
                times[i] = start + (sorted[i] >>> CLIENT_BITS);
                keys[i] = (int) (sorted[i] & ((1 << CLIENT_BITS) - 1));
            }
            return new Trace(kind, seed, start, end, times, keys, clients);
        }
    }
}
