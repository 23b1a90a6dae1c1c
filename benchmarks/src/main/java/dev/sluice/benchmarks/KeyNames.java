package dev.sluice.benchmarks;

import java.util.function.Function;
import java.util.function.Predicate;

/** The benchmark's key names, built once so that no contender pays for string building in its loop. */
final class KeyNames {
    static final String HOT = "hot";

    private KeyNames() {}

    /**
     * The hot key's name: the first {@code base-i} whose store key ({@code storeKey} of the name) passes
     * {@code placement}. In the embedded topology that is "owned by the other member", so that every
     * contender's hot key is one network hop away, as most keys are in a real cluster.
     */
    static String hot(String base, Function<String, String> storeKey, Predicate<String> placement) {
        for (int i = 0; i < 100_000; i++) {
            String name = base + "-" + i;
            if (placement.test(storeKey.apply(name))) {
                return name;
            }
        }
        throw new IllegalStateException("no key name for " + base + " passes the placement");
    }

    /** {@code n} partition ids; a single key is the hot key. */
    static String[] names(int n) {
        if (n == 1) {
            return new String[] {HOT};
        }
        String[] names = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = "k" + i;
        }
        return names;
    }
}
