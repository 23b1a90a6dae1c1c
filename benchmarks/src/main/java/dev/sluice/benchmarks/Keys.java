package dev.sluice.benchmarks;

/** The benchmark's key names, built once so that no contender pays for string building in its loop. */
final class Keys {
    static final String HOT = "hot";

    private Keys() {}

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
