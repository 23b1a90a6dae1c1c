package dev.sluice.servlet;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The reverse proxies whose {@code X-Forwarded-For} header is believed. Immutable and thread-safe.
 *
 * <p>Entries are IP literals ({@code 10.0.0.7}, {@code ::1}) or CIDR ranges ({@code 10.0.0.0/8},
 * {@code fd00::/8}); host names are refused, so nothing here ever does a DNS lookup. The client address
 * of a request is its direct peer unless that peer is trusted; then it is the right-most
 * {@code X-Forwarded-For} entry that is not itself a trusted proxy, since every entry to its left could
 * have been written by the client.
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
     * @throws IllegalArgumentException naming an entry that is not an IP literal or a valid CIDR range
     */
    public static TrustedProxies of(String... addressesOrRanges) {
        return of(Arrays.asList(addressesOrRanges));
    }

    /** As {@link #of(String...)}. */
    public static TrustedProxies of(Collection<String> addressesOrRanges) {
        Objects.requireNonNull(addressesOrRanges, "addressesOrRanges");
        List<String> entries = new ArrayList<>();
        List<Range> ranges = new ArrayList<>();
        for (String entry : addressesOrRanges) {
            Objects.requireNonNull(entry, "trusted proxy");
            String e = entry.strip();
            ranges.add(Range.parse(e));
            entries.add(e);
        }
        return entries.isEmpty() ? NONE : new TrustedProxies(List.copyOf(entries), List.copyOf(ranges));
    }

    /** True if {@code address} is an IP literal inside one of the trusted ranges. */
    public boolean isTrusted(String address) {
        if (ranges.isEmpty() || address == null) {
            return false;
        }
        byte[] bytes = parseLiteral(address);
        if (bytes == null) {
            return false;
        }
        for (Range r : ranges) {
            if (r.contains(bytes)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The client's address: {@code remoteAddress} unless it is trusted, else the right-most entry of the
     * {@code X-Forwarded-For} values that is not trusted (or the left-most, if all are).
     *
     * @param remoteAddress the direct peer's address
     * @param forwardedFor the {@code X-Forwarded-For} header values, in order; may be empty
     */
    public String clientAddress(String remoteAddress, List<String> forwardedFor) {
        Objects.requireNonNull(remoteAddress, "remoteAddress");
        Objects.requireNonNull(forwardedFor, "forwardedFor");
        if (!isTrusted(remoteAddress)) {
            return canonical(remoteAddress);
        }
        List<String> hops = new ArrayList<>();
        for (String value : forwardedFor) {
            for (String hop : value.split(",")) {
                String h = stripPort(hop.strip());
                if (!h.isEmpty()) {
                    hops.add(h);
                }
            }
        }
        if (hops.isEmpty()) {
            return canonical(remoteAddress);
        }
        for (int i = hops.size() - 1; i >= 0; i--) {
            if (!isTrusted(hops.get(i))) {
                return canonical(hops.get(i));
            }
        }
        return canonical(hops.get(0));
    }

    @Override
    public String toString() {
        return "TrustedProxies" + entries;
    }

    /** The canonical text of an IP literal, so that spellings of one address share a budget; else as given. */
    static String canonical(String address) {
        byte[] bytes = parseLiteral(address);
        if (bytes == null) {
            return address;
        }
        try {
            return InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException e) {
            return address;
        }
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

    /** The bytes of an IPv4 or IPv6 literal (IPv4-mapped IPv6 as IPv4), or null; never resolves a name. */
    static byte[] parseLiteral(String s) {
        if (s.isEmpty()) {
            return null;
        }
        if (s.indexOf(':') >= 0) {
            String v6 = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
            for (int i = 0; i < v6.length(); i++) {
                char c = v6.charAt(i);
                boolean ok = Character.digit(c, 16) >= 0 || c == ':' || c == '.' || c == '%';
                if (!ok) {
                    return null;
                }
            }
            try {
                return InetAddress.getByName(v6).getAddress(); // a literal with ':' is parsed, never looked up
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
