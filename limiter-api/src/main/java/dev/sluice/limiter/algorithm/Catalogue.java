package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Every {@link Algorithm}, found once with {@link ServiceLoader} among the registrations of the class loader that
 * loaded Sluice, and looked up by id, name or spec type. Registration is the one way an algorithm joins, for the
 * built-in ones as for a test's, so whatever reads the catalogue sees every algorithm there is.
 */
public final class Catalogue {
    private final List<Algorithm> algorithms;
    private final List<AlgorithmDescription> descriptions;
    private final Algorithm[] byId = new Algorithm[256];
    private final Map<String, Algorithm> byName = new HashMap<>();
    private final Map<Class<?>, Algorithm> bySpecType = new HashMap<>();

    private Catalogue(Iterable<Algorithm> found) {
        List<Algorithm> list = new ArrayList<>();
        for (Algorithm a : found) {
            AlgorithmDescription d = a.description();
            Algorithm sameId = byId[d.id()];
            if (sameId != null && sameId.getClass() == a.getClass()) {
                continue; // the same registration reached twice (a jar on the class path twice)
            }
            refuseClash("id " + d.id(), sameId, a);
            refuseClash("name " + d.name(), byName.get(d.name()), a);
            refuseClash("spec type " + d.specType().getName(), bySpecType.get(d.specType()), a);
            if (d.wireWords() > RequestCodec.SPEC_WORDS - 1) {
                throw new IllegalStateException(a.getClass().getName() + " describes " + d.parameters().size()
                        + " parameters in " + d.wireWords() + " words; the wire form holds at most "
                        + (RequestCodec.SPEC_WORDS - 1) + " (pack them: AlgorithmDescription.Builder.packed)");
            }
            byId[d.id()] = a;
            byName.put(d.name(), a);
            bySpecType.put(d.specType(), a);
            list.add(a);
        }
        list.sort(Comparator.comparingInt(a -> a.description().id()));
        this.algorithms = List.copyOf(list);
        this.descriptions = algorithms.stream().map(Algorithm::description).toList();
    }

    private static void refuseClash(String what, Algorithm registered, Algorithm other) {
        if (registered != null) {
            throw new IllegalStateException("two algorithms claim " + what + ": " + registered.getClass().getName()
                    + " and " + other.getClass().getName() + "; each needs its own id, name and spec type");
        }
    }

    /** Loaded on first use, so that a spec record's validation may read it while the algorithms initialize. */
    private static final class Holder {
        static final Catalogue CATALOGUE = new Catalogue(ServiceLoader.load(Algorithm.class,
                Algorithm.class.getClassLoader()));
    }

    private static Catalogue get() {
        Catalogue catalogue = Holder.CATALOGUE;
        if (catalogue == null) { // read again by the thread that is loading it: an algorithm built a spec meanwhile
            throw new IllegalStateException("a spec was built while the algorithms were loading; an algorithm's"
                    + " class must not build specs as it initializes");
        }
        return catalogue;
    }

    /** Every algorithm, in the order of their ids. */
    public static List<Algorithm> all() {
        return get().algorithms;
    }

    /** Every algorithm's description, in the order of their ids. */
    public static List<AlgorithmDescription> descriptions() {
        return get().descriptions;
    }

    /**
     * The algorithm named {@code name} in settings.
     *
     * @throws IllegalArgumentException naming the value and every known name
     */
    public static Algorithm named(String name) {
        Algorithm a = get().byName.get(name);
        if (a == null) {
            throw new IllegalArgumentException("unknown algorithm '" + name + "'; expected one of "
                    + descriptions().stream().map(AlgorithmDescription::name).toList());
        }
        return a;
    }

    /** The algorithm of state id {@code id}, or {@code null} for an id no algorithm here has. */
    static Algorithm withId(int id) {
        return id > 0 && id < 256 ? get().byId[id] : null;
    }

    /**
     * The algorithm whose specs are {@code specType}.
     *
     * @throws IllegalArgumentException if none is registered for it
     */
    public static Algorithm describing(Class<?> specType) {
        Algorithm a = get().bySpecType.get(specType);
        if (a == null) {
            throw new IllegalArgumentException("no algorithm describes " + specType.getName() + "; an algorithm"
                    + " joins by a line in META-INF/services/" + Algorithm.class.getName() + " (and provides in"
                    + " module-info); a jar that drops that file (shaded without merging services) loses them all");
        }
        return a;
    }

    /** The algorithm that enforces {@code spec}. */
    static Algorithm of(LimitSpec spec) {
        return describing(spec.getClass());
    }
}
