package dev.sluice.jcache;

import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A named, JVM-wide registry of the clocks that JCache processors read: a testing hook.
 *
 * <p>A processor is serialized to wherever the provider runs it, so it cannot carry a clock object. It
 * carries a clock <em>name</em> instead, and reads {@link System#currentTimeMillis()} of the node running
 * it when the name is {@code null} (the default, and what production uses). A named clock must be
 * registered in every JVM that runs processors (for embedded providers and tests that is just this one);
 * a processor that finds no clock under its name fails with an {@link IllegalStateException} rather than
 * silently falling back to another clock.
 *
 * <p>Thread-safe.
 */
public final class ProcessorClocks {
    private static final ConcurrentMap<String, InstantSource> CLOCKS = new ConcurrentHashMap<>();

    private ProcessorClocks() {}

    /**
     * Registers {@code clock} under {@code name} in this JVM.
     *
     * @throws IllegalStateException if another clock is already registered under that name
     */
    public static void register(String name, InstantSource clock) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(clock, "clock");
        InstantSource existing = CLOCKS.putIfAbsent(name, clock);
        if (existing != null && existing != clock) {
            throw new IllegalStateException("a different clock is already registered as '" + name + "': " + existing);
        }
    }

    /** Removes the clock registered under {@code name}; returns whether there was one. */
    public static boolean unregister(String name) {
        return CLOCKS.remove(Objects.requireNonNull(name, "name")) != null;
    }

    /**
     * The time of the named clock, or of the system clock when {@code name} is {@code null}.
     *
     * @throws IllegalStateException if no clock is registered under {@code name} in this JVM
     */
    static long millis(String name) {
        if (name == null) {
            return System.currentTimeMillis();
        }
        InstantSource clock = CLOCKS.get(name);
        if (clock == null) {
            throw new IllegalStateException("no clock is registered as '" + name + "' in the JVM running this "
                    + "processor; call ProcessorClocks.register on every node that runs processors");
        }
        return clock.millis();
    }
}
