package dev.sluice.it.readme;

/**
 * What a document's {@code System.out.println(x); // v: why} becomes when the suite runs it: the line still
 * prints, and fails the block unless it printed {@code v}.
 */
public final class Printed {
    private Printed() {}

    public static void println(Object value, String expected, String where) {
        String printed = String.valueOf(value);
        System.out.println(printed);
        if (!printed.equals(expected)) {
            throw new AssertionError(where + " prints " + printed + ", but its comment says " + expected);
        }
    }
}
