package dev.sluice.http;

import dev.sluice.limiter.Lease;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Says why requests were refused: one {@code DEBUG} line per refusing policy on the logger
 * {@value HttpRateLimiter#REFUSAL_LOGGER}, and the latest refused requests in a ring for
 * {@link HttpRateLimiter#refusals()}. Shadow refusals are told too, marked as such.
 *
 * <p>A flood of refused requests must neither grow memory nor slow the refusals. The ring holds at most its
 * capacity of entries, each replacing the oldest; an entry keeps a method and a path of at most
 * {@value RefusedRequest#MAX_PATH} characters each, the configuration's own route patterns and policy names, and one
 * small outcome per policy that ran (at most one per configured policy), whose key is the hash string the decision
 * already made: at most about 1.5 KB plus 300 bytes a policy, so 100 entries stay well under a megabyte. Recording is an atomic increment and an array store: no
 * lock, no I/O, nothing a reader can hold up. The log line is built only when its logger is on; otherwise a
 * refusal costs one level check. Nothing here ever fails a request.
 */
final class Refusals {
    private static final System.Logger LOG = System.getLogger(HttpRateLimiter.REFUSAL_LOGGER);
    private static final System.Logger OWN = System.getLogger(HttpRateLimiter.class.getName());
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** Each kind's word, made once: an entry keeps a reference, not a string of its own. */
    private static final String[] OUTCOMES = Arrays.stream(PolicyDecision.Kind.values())
            .map(k -> k.name().toLowerCase(Locale.ROOT).replace('_', '-')).toArray(String[]::new);

    /** An entry and its place in the sequence of refusals, so a reader puts a racing writer's entries in order. */
    private record Slot(long sequence, RefusedRequest request) {}

    private final Routes routes;
    private final AtomicReferenceArray<Slot> ring;
    private final AtomicLong written = new AtomicLong();

    Refusals(Routes routes, int capacity) {
        this.routes = routes;
        this.ring = capacity == 0 ? null : new AtomicReferenceArray<>(capacity);
    }

    /**
     * Logs and records the request if any policy refused it, enforced or in shadow mode.
     *
     * @param request the request, or null when the caller identified the client itself (a gateway's key resolver, a
     *     {@code @RateLimited} method)
     * @param routed true if this configuration's routes chose the policies, false if the caller named them
     * @param route the route by which the caller named them (a gateway route's id), or null
     * @param decided every policy's answer, after refunds
     */
    void explain(HttpRequestView request, boolean routed, String route, List<PolicyDecision> decided) {
        if (!anyRefused(decided)) {
            return;
        }
        boolean logging = LOG.isLoggable(Level.DEBUG);
        if (!logging && ring == null) {
            return;
        }
        try {
            String method = request == null ? null : shown(request.getMethod());
            String path = request == null ? null : shown(request.getPath());
            List<String> matched = new ArrayList<>(2);
            if (routed) {
                routes.matching(request).forEach(r -> matched.add(r.pattern()));
            } else if (route != null) {
                matched.add(shown(route));
            }
            List<RefusedRequest.PolicyOutcome> outcomes = new ArrayList<>(decided.size());
            boolean refused = false;
            for (PolicyDecision d : decided) {
                RefusedRequest.PolicyOutcome o = outcome(d);
                outcomes.add(o);
                refused |= d.refuses();
                if (logging && refusal(d)) {
                    LOG.log(Level.DEBUG, line(o, method, path, matched));
                }
            }
            if (ring != null) {
                long sequence = written.getAndIncrement();
                ring.set((int) (sequence % ring.length()), new Slot(sequence,
                        new RefusedRequest(Instant.now(), method, path, matched, refused, outcomes)));
            }
        } catch (RuntimeException e) {
            OWN.log(Level.WARNING, "could not record why a request was refused", e);
        }
    }

    /** The recorded refusals, newest first. */
    List<RefusedRequest> recent() {
        if (ring == null) {
            return List.of();
        }
        List<Slot> slots = new ArrayList<>(ring.length());
        for (int i = 0; i < ring.length(); i++) {
            Slot s = ring.get(i);
            if (s != null) {
                slots.add(s);
            }
        }
        slots.sort(Comparator.comparingLong(Slot::sequence).reversed());
        return slots.stream().map(Slot::request).toList();
    }

    private static boolean anyRefused(List<PolicyDecision> decided) {
        for (PolicyDecision d : decided) {
            if (refusal(d)) {
                return true;
            }
        }
        return false;
    }

    private static boolean refusal(PolicyDecision d) {
        return d.kind() == PolicyDecision.Kind.REFUSED || d.kind() == PolicyDecision.Kind.SHADOW_REFUSED;
    }

    static RefusedRequest.PolicyOutcome outcome(PolicyDecision d) {
        Lease lease = d.lease();
        boolean known = lease != null && !lease.isDegraded();
        return new RefusedRequest.PolicyOutcome(d.policy().name(),
                OUTCOMES[d.kind().ordinal()], d.shadow(), d.partition(), d.permits(),
                known ? Responses.remaining(d) : -1, known ? lease.limit() : d.policy().spec().limit(),
                known ? lease.resetAfter() : null,
                known && !lease.isAcquired() ? lease.retryAfter().orElse(null) : null);
    }

    /**
     * {@code refused policy=login mode=enforced key=5e88... remaining=0 limit=5 reset=41.300s retry-after=41.300s
     * method=POST path=/login routes=/login}: one refusing policy, words without spaces, {@code -} for what is not
     * known.
     */
    static String line(RefusedRequest.PolicyOutcome o, String method, String path, List<String> routes) {
        return "refused policy=" + o.policy() + " mode=" + (o.shadow() ? "shadow" : "enforced") + " key=" + o.key()
                + " remaining=" + (o.remaining() < 0 ? "-" : o.remaining()) + " limit=" + o.limit()
                + " reset=" + seconds(o.reset()) + " retry-after=" + seconds(o.retryAfter())
                + " method=" + (method == null ? "-" : method) + " path=" + (path == null ? "-" : path)
                + " routes=" + (routes.isEmpty() ? "-" : String.join(",", routes));
    }

    /** {@code 41.300s}, or {@code -}. */
    private static String seconds(Duration d) {
        if (d == null) {
            return "-";
        }
        long millis = Math.max(0, d.toMillis());
        return millis / 1000 + "." + String.format(Locale.ROOT, "%03d", millis % 1000) + "s";
    }

    /**
     * A method or path as shown: control, format and space characters percent-encoded (their UTF-8 bytes), so a line
     * cannot be forged or disguised in the log, and cut after {@value RefusedRequest#MAX_PATH} characters.
     */
    static String shown(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder sb = new StringBuilder(Math.min(text.length(), RefusedRequest.MAX_PATH) + 8);
        for (int i = 0; i < text.length(); i++) {
            if (sb.length() >= RefusedRequest.MAX_PATH) {
                return sb.append("...").toString();
            }
            char c = text.charAt(i);
            if (Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSpaceChar(c)
                    || Character.getType(c) == Character.FORMAT) {
                for (byte b : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                    sb.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
                }
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
