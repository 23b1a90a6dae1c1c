package dev.sluice.http;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The reverse proxies whose {@code X-Forwarded-For} and {@code Forwarded} (RFC 7239) headers are believed.
 * Immutable and thread-safe.
 *
 * <p>Entries are IP literals ({@code 10.0.0.7}, {@code ::1}) or CIDR ranges ({@code 10.0.0.0/8},
 * {@code fd00::/8}); host names are refused, so nothing here ever does a DNS lookup. Ranges that together
 * cover half of an address family or more ({@code 0.0.0.0/0}, {@code ::/0}, but also
 * {@code 0.0.0.0/1,128.0.0.0/1} or a lone {@code ::/1}) are refused unless explicitly allowed
 * ({@link #of(Collection, boolean)}): they make nearly every peer a proxy, so nearly every client could choose
 * its own address. The client address of a request is its direct peer unless that peer is trusted; then it is the
 * right-most forwarded entry that is not itself a trusted proxy, since every entry to its left could have
 * been written by the client. Reading the headers is bounded whatever their size (see
 * {@link #clientAddress(String, List, List)}).
 *
 * <p>A trusted proxy vouches only for the header it appends to. When a request carries both headers, one of
 * them was written by the client, and nothing in the request tells which; if they name different clients,
 * the trusted peer itself is taken as the client, so neither header can be forged into a fresh budget.
 */
public final class TrustedProxies {
    private static final TrustedProxies NONE = new TrustedProxies(List.of(), List.of());

    private final List<String> entries;
    private final List<Range> ranges;

    private TrustedProxies(List<String> entries, List<Range> ranges) {
        this.entries = entries;
        this.ranges = ranges;
    }

    /** Trusts no proxy: {@code X-Forwarded-For} is always ignored (the default). */
    public static TrustedProxies none() {
        return NONE;
    }

    /**
     * Trusts the given addresses and CIDR ranges.
     *
     * @throws IllegalArgumentException naming an entry that is not an IP literal or a valid CIDR range, or
     *     ranges that together cover half of an address family or more
     */
    public static TrustedProxies of(String... addressesOrRanges) {
        return of(Arrays.asList(addressesOrRanges));
    }

    /** As {@link #of(String...)}. */
    public static TrustedProxies of(Collection<String> addressesOrRanges) {
        return of(addressesOrRanges, false);
    }

    /**
     * Trusts the given addresses and CIDR ranges; {@code allowEveryAddress} also accepts ranges that together
     * cover half of an address family or more (up to every address: {@code 0.0.0.0/0}, {@code ::/0}), for a
     * server that only proxies you run can reach.
     *
     * @throws IllegalArgumentException naming an entry that is not an IP literal or a valid CIDR range, or
     *     ranges that cover half of an address family or more when {@code allowEveryAddress} is false
     */
    public static TrustedProxies of(Collection<String> addressesOrRanges, boolean allowEveryAddress) {
        Objects.requireNonNull(addressesOrRanges, "addressesOrRanges");
        List<String> entries = new ArrayList<>();
        List<Range> ranges = new ArrayList<>();
        for (String entry : addressesOrRanges) {
            Objects.requireNonNull(entry, "trusted proxy");
            String e = entry.strip();
            Range range = Range.parse(e);
            if (range.prefixBits() == 0 && !allowEveryAddress) {
                throw tooWide("trusted proxy range '" + e + "' covers every address");
            }
            ranges.add(range);
            entries.add(e);
        }
        if (!allowEveryAddress) {
            checkCoverage(entries, ranges, 4, "IPv4");
            checkCoverage(entries, ranges, 16, "IPv6");
        }
        return entries.isEmpty() ? NONE : new TrustedProxies(List.copyOf(entries), List.copyOf(ranges));
    }

    /**
     * Refuses ranges of one family whose union is half of its addresses or more: as wide as a {@code /1},
     * however it is split ({@code 0.0.0.0/1,128.0.0.0/1} is {@code 0.0.0.0/0}; four {@code /2}s, a {@code /1}),
     * which no real proxy fleet needs and which lets most clients choose their own address.
     */
    private static void checkCoverage(List<String> entries, List<Range> ranges, int bytes, String family) {
        List<BigInteger[]> spans = new ArrayList<>();
        List<String> named = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            Range r = ranges.get(i);
            if (r.network().length == bytes) {
                BigInteger size = BigInteger.ONE.shiftLeft(bytes * 8 - r.prefixBits());
                BigInteger start = new BigInteger(1, r.network()).divide(size).multiply(size);
                spans.add(new BigInteger[] {start, start.add(size)});
                named.add(entries.get(i));
            }
        }
        spans.sort((a, b) -> a[0].compareTo(b[0]));
        BigInteger covered = BigInteger.ZERO;
        BigInteger end = BigInteger.ZERO;
        for (BigInteger[] span : spans) {
            BigInteger from = span[0].max(end);
            if (span[1].compareTo(from) > 0) {
                covered = covered.add(span[1].subtract(from));
                end = span[1];
            }
        }
        BigInteger all = BigInteger.ONE.shiftLeft(bytes * 8);
        if (covered.equals(all)) {
            throw tooWide("trusted proxy ranges " + named + " together cover every " + family + " address");
        }
        if (covered.shiftLeft(1).compareTo(all) >= 0) {
            throw tooWide("trusted proxy ranges " + named + " together cover half of all " + family
                    + " addresses or more (as wide as a /1)");
        }
    }

    private static IllegalArgumentException tooWide(String what) {
        return new IllegalArgumentException(what + ", so almost every client could choose its own address in"
                + " X-Forwarded-For or Forwarded; list the addresses or ranges of your proxies instead"
                + " (e.g. 10.0.0.0/8), or, if only your proxies can reach this server, allow it explicitly ("
                + ALLOW_EVERY_ADDRESS_PROPERTY + "=true, or TrustedProxies.of(ranges, true))");
    }

    /** True if {@code address} is an IP literal inside one of the trusted ranges. */
    public boolean isTrusted(String address) {
        if (ranges.isEmpty() || address == null) {
            return false;
        }
        byte[] bytes = parseLiteral(address);
        return bytes != null && isTrusted(bytes);
    }

    /** As {@link #clientAddress(String, List, List)} with no {@code Forwarded} header. */
    public String clientAddress(String remoteAddress, List<String> forwardedFor) {
        return clientAddress(remoteAddress, forwardedFor, List.of());
    }

    /**
     * The client's address: {@code remoteAddress} unless it is trusted, else the right-most forwarded entry
     * that is not trusted (or the left-most examined, if all are), in its canonical form. The entries are
     * those of {@code X-Forwarded-For}, or the {@code for} parameters of RFC 7239 {@code Forwarded}; when
     * both headers are present and name different clients, {@code remoteAddress} (see the class comment).
     * Also:
     * <ul>
     *   <li>an address that is not an IP literal (a Unix socket path, a host name, garbage) is
     *       {@value #UNKNOWN}, one shared identity, so it cannot be varied to escape a budget;
     *   <li>a forwarded entry that is not an IP literal ({@code unknown}, an obfuscated {@code _hidden}, a
     *       {@code Forwarded} element without {@code for}, anything longer than {@value #MAX_HOP_LENGTH}
     *       characters) stops the walk: the trusted proxy that wrote it is taken as the client, since nothing
     *       it reports can be believed;
     *   <li>at most {@value #MAX_HOPS} entries are examined, from the right; if all of them are trusted,
     *       the left-most of those is the client.
     * </ul>
     * {@code X-Forwarded-For} is scanned from the end without splitting it, and {@code Forwarded} keeps only
     * its last {@value #MAX_HOPS} entries, so neither time nor memory grows with anything but the headers'
     * length, whatever the client put to the left.
     *
     * @param remoteAddress the direct peer's address
     * @param forwardedFor the {@code X-Forwarded-For} header values, in order; may be empty
     * @param forwarded the {@code Forwarded} header values, in order; may be empty
     */
    public String clientAddress(String remoteAddress, List<String> forwardedFor, List<String> forwarded) {
        Objects.requireNonNull(remoteAddress, "remoteAddress");
        Objects.requireNonNull(forwardedFor, "forwardedFor");
        Objects.requireNonNull(forwarded, "forwarded");
        byte[] peer = parseLiteral(remoteAddress);
        if (peer == null) {
            return UNKNOWN;
        }
        String reporter = text(peer);
        if (!isTrusted(peer)) {
            return reporter;
        }
        boolean xff = hasEntry(forwardedFor);
        boolean rfc = hasEntry(forwarded);
        if (xff && rfc) {
            String one = walkForwardedFor(reporter, forwardedFor);
            String other = walk(reporter, forwardedHops(forwarded));
            return one.equals(other) ? one : reporter;
        }
        return rfc ? walk(reporter, forwardedHops(forwarded)) : walkForwardedFor(reporter, forwardedFor);
    }

    private static boolean hasEntry(List<String> values) {
        for (String v : values) {
            Objects.requireNonNull(v, "forwarded header value");
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                if (c > ' ' && c != ',') {
                    return true;
                }
            }
        }
        return false;
    }

    /** The walk over {@code X-Forwarded-For}, scanned from the end of the last line. */
    private String walkForwardedFor(String reporter, List<String> forwardedFor) {
        Walk walk = new Walk(reporter);
        int examined = 0;
        for (int v = forwardedFor.size() - 1; v >= 0; v--) {
            String value = forwardedFor.get(v);
            int end = value.length();
            while (end >= 0) {
                int comma = value.lastIndexOf(',', end - 1);
                int from = comma + 1;
                int to = end;
                end = comma;
                while (from < to && value.charAt(from) <= ' ') {
                    from++;
                }
                while (to > from && value.charAt(to - 1) <= ' ') {
                    to--;
                }
                if (from == to) {
                    continue; // an empty list element
                }
                if (++examined > MAX_HOPS) {
                    return walk.reporter;
                }
                if (!walk.next(to - from > MAX_HOP_LENGTH ? null : parseLiteral(stripPort(value.substring(from, to))))) {
                    return walk.reporter;
                }
            }
        }
        return walk.reporter;
    }

    /** The walk over hops listed right to left ({@code null}: an entry that names no address). */
    private String walk(String reporter, List<String> hopsFromRight) {
        Walk walk = new Walk(reporter);
        for (String h : hopsFromRight) {
            if (!walk.next(h == null || h.length() > MAX_HOP_LENGTH ? null : parseLiteral(stripPort(h)))) {
                break;
            }
        }
        return walk.reporter;
    }

    /** A walk from the nearest hop outwards: the client is the first hop not trusted, or the last readable one. */
    private final class Walk {
        String reporter;

        Walk(String reporter) {
            this.reporter = reporter;
        }

        /** Takes the next hop ({@code null}: an entry that names no address); false once the walk has ended. */
        boolean next(byte[] hop) {
            if (hop == null) {
                return false;
            }
            reporter = text(hop);
            return isTrusted(hop);
        }
    }

    /**
     * The {@code for} values of the last {@value #MAX_HOPS} elements of RFC 7239 {@code Forwarded} values,
     * right to left, unquoted; {@code null} for an element without {@code for}, or one too long to be an
     * address. The scan is linear in the values and keeps at most {@value #MAX_HOPS} entries.
     */
    static List<String> forwardedHops(List<String> forwarded) {
        ArrayDeque<String> hops = new ArrayDeque<>();
        for (String value : forwarded) {
            int i = 0;
            int n = value.length();
            while (i <= n) {
                String node = null;
                boolean any = false;
                while (i < n && value.charAt(i) != ',') { // one element: pairs separated by ';'
                    while (i < n && (value.charAt(i) <= ' ' || value.charAt(i) == ';')) {
                        i++;
                    }
                    int nameFrom = i;
                    while (i < n && value.charAt(i) != '=' && value.charAt(i) != ';' && value.charAt(i) != ',') {
                        i++;
                    }
                    String name = value.substring(nameFrom, i).strip();
                    String pairValue = "";
                    if (i < n && value.charAt(i) == '=') {
                        i++;
                        StringBuilder v = new StringBuilder();
                        if (i < n && value.charAt(i) == '"') {
                            i++;
                            while (i < n && value.charAt(i) != '"') {
                                char c = value.charAt(i) == '\\' && i + 1 < n ? value.charAt(++i) : value.charAt(i);
                                if (v.length() <= MAX_HOP_LENGTH) {
                                    v.append(c);
                                }
                                i++;
                            }
                            i++; // the closing quote
                        } else {
                            while (i < n && value.charAt(i) != ';' && value.charAt(i) != ',') {
                                if (v.length() <= MAX_HOP_LENGTH) {
                                    v.append(value.charAt(i));
                                }
                                i++;
                            }
                        }
                        pairValue = v.toString().strip();
                    }
                    if (!name.isEmpty()) {
                        any = true;
                        if (name.equalsIgnoreCase("for") && node == null) {
                            node = pairValue;
                        }
                    }
                    while (i < n && value.charAt(i) != ';' && value.charAt(i) != ',') {
                        i++; // garbage after a quoted value
                    }
                }
                if (any) {
                    if (hops.size() == MAX_HOPS) {
                        hops.removeFirst();
                    }
                    hops.addLast(node == null ? "" : node);
                }
                i++; // the comma
            }
        }
        List<String> fromRight = new ArrayList<>(hops.size());
        hops.descendingIterator().forEachRemaining(h -> fromRight.add(h.isEmpty() ? null : h));
        return fromRight;
    }

    /**
     * {@code address} (canonical, as {@link #clientAddress} answers) with an IPv6 address cut to its first
     * {@code ipv6PrefixBits} bits, as {@code <network>/<bits>}; IPv4 and {@value #UNKNOWN} as they are.
     */
    static String grouped(String address, int ipv6PrefixBits) {
        byte[] bytes = parseLiteral(address);
        if (bytes == null || bytes.length == 4 || ipv6PrefixBits >= 128) {
            return address;
        }
        for (int bit = ipv6PrefixBits; bit < 128; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return text(bytes) + "/" + ipv6PrefixBits;
    }

    /** The identity of every address that is not an IP literal. */
    static final String UNKNOWN = "unknown";

    /** The property that allows a range covering every address, named in the error that refuses one. */
    static final String ALLOW_EVERY_ADDRESS_PROPERTY = "sluice.client.allow-trust-all";

    /** Forwarded entries examined at most, from the right. */
    static final int MAX_HOPS = 64;

    /** The longest forwarded entry read as an address: a bracketed IPv6 literal with a port and zone fits. */
    static final int MAX_HOP_LENGTH = 64;

    private boolean isTrusted(byte[] bytes) {
        for (Range r : ranges) {
            if (r.contains(bytes)) {
                return true;
            }
        }
        return false;
    }

    private static String text(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address of " + bytes.length + " bytes", e); // 4 or 16: never
        }
    }

    @Override
    public String toString() {
        return "TrustedProxies" + entries;
    }

    /**
     * The canonical text of an IP literal, so that spellings of one address share a budget; {@value #UNKNOWN}
     * for anything else.
     */
    static String canonical(String address) {
        byte[] bytes = parseLiteral(address);
        return bytes == null ? UNKNOWN : text(bytes);
    }

    /** Removes a port ({@code 1.2.3.4:80}) or brackets ({@code [::1]:80}) from a forwarded hop. */
    private static String stripPort(String hop) {
        if (hop.startsWith("[")) {
            int end = hop.indexOf(']');
            return end > 0 ? hop.substring(1, end) : hop;
        }
        int colon = hop.indexOf(':');
        if (colon > 0 && colon == hop.lastIndexOf(':') && hop.indexOf('.') > 0) {
            return hop.substring(0, colon);
        }
        return hop;
    }

    /**
     * The bytes of an IPv4 or IPv6 literal (IPv4-mapped IPv6 as IPv4; an IPv6 zone is ignored), or null;
     * never resolves a name. Only ASCII hex digits, {@code :} and {@code .} reach
     * {@link InetAddress#getByName}, which parses such a string (it starts with a hex digit or {@code :}
     * and holds a {@code :}) as a literal and never looks it up: other characters (non-ASCII digits, a
     * leading {@code .} or {@code %}) would send it to DNS.
     */
    static byte[] parseLiteral(String s) {
        if (s.isEmpty() || s.length() > MAX_HOP_LENGTH) {
            return null;
        }
        if (s.indexOf(':') >= 0) {
            String v6 = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
            int zone = v6.indexOf('%');
            if (zone >= 0) {
                v6 = v6.substring(0, zone);
            }
            if (v6.isEmpty()) {
                return null;
            }
            for (int i = 0; i < v6.length(); i++) {
                char c = v6.charAt(i);
                boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':'
                        || c == '.';
                if (!ok) {
                    return null;
                }
            }
            if (v6.indexOf(':') < 0 || v6.charAt(0) == '.') {
                return null;
            }
            try {
                return InetAddress.getByName(v6).getAddress();
            } catch (UnknownHostException e) {
                return null;
            }
        }
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3) {
                return null;
            }
            int v = 0;
            for (int j = 0; j < p.length(); j++) {
                char c = p.charAt(j);
                if (c < '0' || c > '9') {
                    return null;
                }
                v = v * 10 + (c - '0');
            }
            if (v > 255) {
                return null;
            }
            b[i] = (byte) v;
        }
        return b;
    }

    private record Range(byte[] network, int prefixBits) {
        static Range parse(String entry) {
            int slash = entry.indexOf('/');
            String address = slash < 0 ? entry : entry.substring(0, slash);
            byte[] bytes = parseLiteral(address);
            if (bytes == null) {
                throw new IllegalArgumentException("trusted proxy must be an IP address or CIDR range"
                        + " (e.g. 10.0.0.7, 10.0.0.0/8, ::1), was '" + entry + "'");
            }
            int max = bytes.length * 8;
            int bits = max;
            if (slash >= 0) {
                try {
                    bits = Integer.parseInt(entry.substring(slash + 1));
                } catch (NumberFormatException e) {
                    bits = -1;
                }
                if (bits < 0 || bits > max) {
                    throw new IllegalArgumentException("trusted proxy range must have a prefix length between 0 and "
                            + max + ", was '" + entry + "'");
                }
            }
            return new Range(bytes, bits);
        }

        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int full = prefixBits / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefixBits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (address[full] & mask) == (network[full] & mask);
        }
    }
}
