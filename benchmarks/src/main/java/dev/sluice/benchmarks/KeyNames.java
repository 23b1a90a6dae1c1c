package dev.sluice.benchmarks;

import dev.sluice.limiter.Keys;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Predicate;

/** The benchmark's key names, built once so that no contender pays for string building in its loop. */
final class KeyNames {
    static final String HOT = "hot";

    /** While set ({@link #asIdentities}), partition ids are client identities as the HTTP edge stores them. */
    private static volatile boolean identities;

    private KeyNames() {}

    /**
     * Runs {@code body} with {@link #names} giving client identities as the HTTP edge stores them, the digest of
     * {@code ip:<address>} ({@link Keys#digest}), instead of the short {@code k<n>}: what the memory pass measures.
     */
    static <T> T asIdentities(Callable<T> body) throws Exception {
        identities = true;
        try {
            return body.call();
        } finally {
            identities = false;
        }
    }

    /** The partition id of client {@code i} as the HTTP edge stores it: the digest of an address of 10/8. */
    static String identity(int i) {
        return Keys.digest("ip:10." + ((i >>> 16) & 0xFF) + "." + ((i >>> 8) & 0xFF) + "." + (i & 0xFF));
    }

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
            names[i] = identities ? identity(i) : "k" + i;
        }
        return names;
    }
}
