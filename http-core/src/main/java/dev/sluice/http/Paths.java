package dev.sluice.http;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;

/**
 * How a request path is compared with a route pattern.
 *
 * <p>A route protects an endpoint, and an application serves an endpoint under more spellings than
 * one: JAX-RS and Spring route {@code /api/login/} to {@code /api/login}, Spring trimmed path tokens
 * (so {@code /api/login%20}, decoded by the container to {@code "/api/login "}, matched) and once
 * matched suffixes ({@code /api/login.json}), some stacks ignore case, strip path parameters or
 * treat {@code \} as {@code /}. A limit that misses any spelling the application serves is a bypass,
 * while a limit that also covers a spelling the application does not serve only limits requests that
 * end in 404. So canonical matching (the default) reduces both sides to one form that errs towards
 * matching: split at {@code /} and {@code \}; in each segment drop path parameters (from {@code ;}) and
 * leading and trailing whitespace, control and invisible format characters; drop empty and {@code .}
 * segments, let {@code ..} remove the one before; compare compatibility forms (fullwidth letters) as their
 * plain letters and case-insensitively, as {@link String#equalsIgnoreCase} does; and let the last segment
 * of the path carry a {@code .suffix} that the pattern's last segment does not have. Exact matching
 * (opt-in) compares the container's decoded path as it is.
 *
 * <p>The container decodes and normalizes first (Jetty refuses ambiguous encodings such as
 * {@code %2F} and {@code %2e%2e} with 400); what reaches this class is its decoded path. The work is
 * linear in the path, which the container bounds.
 */
final class Paths {
    private Paths() {}

    /** The canonical form of a decoded path: {@code /}-separated lower-case segments, {@code /} for none. */
    static String canonical(String path) {
        List<String> segments = new ArrayList<>();
        int n = path.length();
        int start = 0;
        while (start <= n) {
            int end = start;
            while (end < n && path.charAt(end) != '/' && path.charAt(end) != '\\') {
                end++;
            }
            String segment = path.substring(start, end);
            int parameters = segment.indexOf(';');
            if (parameters >= 0) {
                segment = segment.substring(0, parameters);
            }
            segment = trim(segment);
            if (segment.equals("..")) {
                if (!segments.isEmpty()) {
                    segments.remove(segments.size() - 1);
                }
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(fold(segment));
            }
            start = end + 1;
        }
        return "/" + String.join("/", segments);
    }

    /** Whether {@code path} is {@code base}, or {@code base} with a {@code .suffix} its last segment lacks. */
    static boolean sameEndpoint(String canonicalPath, String canonicalBase) {
        if (canonicalPath.equals(canonicalBase)) {
            return true;
        }
        int lastSlash = canonicalBase.lastIndexOf('/');
        boolean baseHasSuffix = canonicalBase.indexOf('.', lastSlash) >= 0;
        return !baseHasSuffix && lastSlash < canonicalBase.length() - 1
                && canonicalPath.startsWith(canonicalBase) && canonicalPath.length() > canonicalBase.length()
                && canonicalPath.charAt(canonicalBase.length()) == '.'
                && canonicalPath.indexOf('/', canonicalBase.length()) < 0;
    }

    /**
     * The segment in NFKC (fullwidth and other compatibility forms as their plain letters), each code
     * point folded as {@link String#equalsIgnoreCase} compares: {@code İ}, {@code ſ} and the Kelvin sign
     * fold to {@code i}, {@code s} and {@code k}, which {@code toLowerCase} would not all do.
     */
    private static String fold(String segment) {
        String s = segment;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                s = Normalizer.normalize(s, Normalizer.Form.NFKC);
                break;
            }
        }
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> sb.appendCodePoint(Character.toLowerCase(Character.toUpperCase(cp))));
        return sb.toString();
    }

    /** Drops leading and trailing code points that are whitespace, control or invisible format characters. */
    private static String trim(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && ignorable(s.codePointAt(from))) {
            from += Character.charCount(s.codePointAt(from));
        }
        while (to > from && ignorable(s.codePointBefore(to))) {
            to -= Character.charCount(s.codePointBefore(to));
        }
        return s.substring(from, to);
    }

    private static boolean ignorable(int codePoint) {
        return Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint) || Character.isISOControl(codePoint)
                || Character.getType(codePoint) == Character.FORMAT;
    }
}
