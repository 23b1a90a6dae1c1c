package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class TrustedProxiesTest {
    private final TrustedProxies proxies = TrustedProxies.of("10.0.0.0/8", "192.168.1.1", "fd00::/8");

    @Test
    void isTrusted_addressesAndRanges() {
        assertTrue(proxies.isTrusted("10.255.0.1"));
        assertTrue(proxies.isTrusted("192.168.1.1"));
        assertFalse(proxies.isTrusted("192.168.1.2"));
        assertTrue(proxies.isTrusted("fd12::1"));
        assertFalse(proxies.isTrusted("fe80::1"));
        assertFalse(proxies.isTrusted("11.0.0.1"));
        assertFalse(proxies.isTrusted("localhost")); // names are never resolved
        assertFalse(TrustedProxies.none().isTrusted("10.0.0.1"));
    }

    @Test
    void of_refusesHostNamesAndBadPrefixes() {
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("proxy.example.com"));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("10.0.0.0/33"));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("10.0.0.0/x"));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("256.0.0.1"));
        assertEquals("trusted proxy must be an IP address or CIDR range (e.g. 10.0.0.7, 10.0.0.0/8, ::1), was 'x'",
                assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("x")).getMessage());
    }

    /**
     * Bug: the trust-all guard looked at one range at a time, so {@code 0.0.0.0/1,128.0.0.0/1} (every IPv4
     * address) started, and a client rotating {@code X-Forwarded-For} got a fresh budget each time.
     */
    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0/1,128.0.0.0/1", "::/1,8000::/1", "0.0.0.0/1", "128.0.0.0/1", "::/1",
            "8000::/1", "0.0.0.0/2,64.0.0.0/2,128.0.0.0/2,192.0.0.0/2", "0.0.0.0/2,64.0.0.0/2",
            "10.0.0.0/8,128.0.0.0/1", "128.0.0.7/1", "0.0.0.0/0", "::/0", "10.0.0.0/8,::/0",
            "0.0.0.0/3,32.0.0.0/3,64.0.0.0/3,96.0.0.0/3"})
    void of_rangesCoveringHalfAFamilyOrMore_refusedUnlessAllowed(String list) {
        List<String> entries = List.of(list.split(","));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of(entries));
        assertTrue(e.getMessage().contains("sluice.client.allow-trust-all=true"), e.getMessage());
        assertTrue(e.getMessage().startsWith("trusted proxy range"), e.getMessage());

        TrustedProxies allowed = TrustedProxies.of(entries, true);
        assertTrue(allowed.isTrusted(list.contains(":") ? "2001:db8::1" : "127.0.0.1")
                || allowed.isTrusted(list.contains(":") ? "8001::1" : "198.51.100.1"));
    }

    @Test
    void of_splitEveryAddress_messageNamesTheEntriesAndTheFamily() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("0.0.0.0/1", "128.0.0.0/1"))
                .getMessage().startsWith("trusted proxy ranges [0.0.0.0/1, 128.0.0.0/1] together cover every IPv4"
                        + " address, so"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("10.0.0.1", "::/1"))
                .getMessage().startsWith("trusted proxy ranges [::/1] together cover half of all IPv6 addresses"));
    }

    /** Wide but real ranges (all private ranges, IPv6 global unicast, overlapping duplicates) stay allowed. */
    @Test
    void of_wideButLessThanHalf_accepted() {
        assertTrue(TrustedProxies.of("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "2000::/3")
                .isTrusted("172.20.0.1"));
        assertTrue(TrustedProxies.of("0.0.0.0/2", "0.0.0.0/2", "32.0.0.0/3", "64.0.0.0/3").isTrusted("65.0.0.1"));
        assertTrue(TrustedProxies.of("0.0.0.0/2", "::/2").isTrusted("::1"));
    }

    @Test
    void clientAddress_untrustedPeer_ignoresForwardedFor() {
        assertEquals("1.2.3.4", proxies.clientAddress("1.2.3.4", List.of("9.9.9.9")));
    }

    @Test
    void clientAddress_trustedPeer_rightMostUntrusted() {
        assertEquals("5.6.7.8", proxies.clientAddress("10.0.0.1", List.of("1.1.1.1, 5.6.7.8, 10.0.0.2")));
        assertEquals("5.6.7.8", proxies.clientAddress("10.0.0.1", List.of("1.1.1.1", "5.6.7.8:4711", "192.168.1.1")));
        assertEquals("2001:db8:0:0:0:0:0:1", proxies.clientAddress("10.0.0.1", List.of("[2001:DB8:0::1]:443")));
    }

    @Test
    void clientAddress_allTrusted_leftMost() {
        assertEquals("10.0.0.3", proxies.clientAddress("10.0.0.1", List.of("10.0.0.3, 10.0.0.2")));
    }

    @Test
    void clientAddress_noForwardedFor_peer() {
        assertEquals("10.0.0.1", proxies.clientAddress("10.0.0.1", List.of()));
        assertEquals("10.0.0.1", proxies.clientAddress("10.0.0.1", List.of(" , ")));
    }

    @Test
    void clientAddress_garbageEntry_theProxyThatWroteItIsTheClient() {
        assertEquals("10.0.0.1", proxies.clientAddress("10.0.0.1", List.of("1.1.1.1, unknown")));
        assertEquals("10.0.0.2", proxies.clientAddress("10.0.0.1", List.of("1.1.1.1, _hidden, 10.0.0.2")));
    }

    /** At most the 64 right-most entries are examined; if all are trusted, the left-most of those answers. */
    @Test
    void clientAddress_moreTrustedHopsThanExamined_theLeftMostExamined() {
        StringBuilder hops = new StringBuilder("203.0.113.9");
        for (int i = 100; i > 0; i--) {
            hops.append(", 10.0.0.").append(i);
        }
        assertEquals("10.0.0.64", proxies.clientAddress("10.0.0.200", List.of(hops.toString())));
    }

    @Test
    void clientAddress_valuesScannedFromTheLastHeaderLine() {
        assertEquals("5.6.7.8", proxies.clientAddress("10.0.0.1", List.of("1.1.1.1", "5.6.7.8, 10.0.0.3", "10.0.0.2")));
        assertEquals("10.0.0.2", proxies.clientAddress("10.0.0.1", List.of("5.6.7.8", "x".repeat(100_000) + ", 10.0.0.2")));
    }

    @Test
    void clientAddress_untrustedOrInvalidPeer() {
        assertEquals("unknown", proxies.clientAddress("", List.of("1.1.1.1")));
        assertEquals("unknown", proxies.clientAddress("/run/app.sock", List.of("1.1.1.1")));
        assertEquals("0:0:0:0:0:0:0:1", proxies.clientAddress("[::1]", List.of("1.1.1.1")));
    }

    /** Only ASCII hex digits, ':' and '.' reach InetAddress, which would send anything else to DNS. */
    @Test
    void parseLiteral_neverAName() {
        for (String s : List.of("..:", ".::1", "%eth0", "%:", "\u0661::1", "\u0663.\u0663.\u0663.\u0663", "example.com",
                "localhost", "::g", "1::2::3", "[::1", "x".repeat(70), "1.2.3.4.5", "256.1.1.1", "-1.2.3.4")) {
            assertEquals(null, TrustedProxies.parseLiteral(s), s);
        }
        assertEquals(16, TrustedProxies.parseLiteral("fe80::1%eth0").length);
        assertEquals(4, TrustedProxies.parseLiteral("::ffff:10.0.0.1").length);
    }

    @Test
    void grouped_ipv6ByPrefix_ipv4AsItIs() {
        assertEquals("2001:db8:1:200:0:0:0:0/56", TrustedProxies.grouped("2001:db8:1:2ff:a:b:c:d", 56));
        assertEquals("2001:db8:1:2ff:a:b:c:d", TrustedProxies.grouped("2001:db8:1:2ff:a:b:c:d", 128));
        assertEquals("2001:db8:8000:0:0:0:0:0/33", TrustedProxies.grouped("2001:db8:ffff::1", 33)); // one bit of ffff kept
        assertEquals("203.0.113.7", TrustedProxies.grouped("203.0.113.7", 64));
        assertEquals("unknown", TrustedProxies.grouped("unknown", 64));
    }

    @Test
    void forwardedHops_rfc7239_quotedPortsAndBracketsElementsWithoutForRightToLeft() {
        assertEquals(java.util.Arrays.asList("10.0.0.2", null, "[2001:db8:cafe::17]:4711", "192.0.2.60"),
                TrustedProxies.forwardedHops(List.of("for=192.0.2.60;proto=http;by=203.0.113.43, For=\"[2001:db8:cafe::17]:4711\"",
                        "proto=https;by=10.0.0.1, for=\"10.0.0.2\";host=\"a,b;c\"")));
        assertEquals(List.of(), TrustedProxies.forwardedHops(List.of(" , ,", "")));
    }

    @Test
    void clientAddress_forwarded_rightMostUntrusted_obfuscatedStopsTheWalk() {
        assertEquals("5.6.7.8", proxies.clientAddress("10.0.0.1", List.of(),
                List.of("for=1.1.1.1, for=\"5.6.7.8:443\", for=10.0.0.2")));
        assertEquals("10.0.0.2", proxies.clientAddress("10.0.0.1", List.of(), List.of("for=1.1.1.1, for=_hidden, for=10.0.0.2")));
        assertEquals("10.0.0.1", proxies.clientAddress("10.0.0.1", List.of(), List.of("for=1.1.1.1, by=10.0.0.9")));
        assertEquals("1.2.3.4", proxies.clientAddress("1.2.3.4", List.of(), List.of("for=9.9.9.9")));
    }

    @Test
    void clientAddress_bothHeaders_agreeingTheClient_disagreeingThePeer() {
        assertEquals("5.6.7.8", proxies.clientAddress("10.0.0.1", List.of("5.6.7.8"), List.of("for=5.6.7.8")));
        assertEquals("10.0.0.1", proxies.clientAddress("10.0.0.1", List.of("5.6.7.8"), List.of("for=9.9.9.9")));
    }

    @Test
    void of_refusesRangesCoveringEveryAddress_unlessAllowed() {
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("0.0.0.0/0"));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of("10.0.0.0/8", "::/0"));
        assertTrue(TrustedProxies.of(List.of("0.0.0.0/0"), true).isTrusted("203.0.113.7"));
        assertTrue(TrustedProxies.of(List.of("0.0.0.0/1"), true).isTrusted("10.0.0.1"));
    }
}
