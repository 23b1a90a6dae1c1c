package dev.sluice.http;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.Settlement;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The grants of one request that its response settles ({@link ResponseCost}), and their settlement once the status
 * and headers are known. A settlement that fails leaves the reservation (logged, never thrown).
 */
final class ResponseSettlement {
    private static final System.Logger LOG = System.getLogger(ResponseSettlement.class.getName());
    /** The policies whose cost header was found absent or malformed, or too large, so far: each logged once. */
    private static final Set<String> TOLD = ConcurrentHashMap.newKeySet();

    /** One grant to settle. */
    record Pending(String policy, Lease lease, long reserved, ResponseCost rule) {}

    private ResponseSettlement() {}

    /** The granted decisions whose policy settles from the response. */
    static List<Pending> of(List<PolicyDecision> decisions, Map<String, ResponseCost> rules) {
        if (rules.isEmpty()) {
            return List.of();
        }
        List<Pending> pending = new ArrayList<>();
        for (PolicyDecision d : decisions) {
            ResponseCost rule = rules.get(d.policy().name());
            if (rule != null && d.kind() == PolicyDecision.Kind.GRANTED && d.permits() > 0 && d.lease() != null
                    && d.lease().isAcquired() && !d.lease().isDegraded()
                    && !(d.policy().spec() instanceof LimitSpec.Concurrency)) {
                pending.add(new Pending(d.policy().name(), d.lease(), d.permits(), rule));
            }
        }
        return List.copyOf(pending);
    }

    /** Settles every pending grant from the response; completes, never exceptionally, when every one has. */
    static CompletableFuture<Void> settle(List<Pending> pending, int status, Function<String, String> headers) {
        List<CompletableFuture<?>> settled = new ArrayList<>(pending.size());
        for (Pending p : pending) {
            long cost = p.rule().cost(p.reserved(), status, headers,
                    () -> once(p.policy() + "/unread", "policy '" + p.policy() + "': response header "
                            + p.rule().costHeader() + " was absent or not a whole number; the reservation of "
                            + p.reserved() + " stands (told once per policy)"),
                    read -> once(p.policy() + "/above", "policy '" + p.policy() + "': response header "
                            + p.rule().costHeader() + " said " + read + ", above the most one settlement charges; charged "
                            + LimitSpec.MAX_LIMIT + " (told once per policy)"));
            if (cost < 0) {
                continue;
            }
            CompletableFuture<Settlement> f;
            try {
                f = p.lease().settle(cost);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            settled.add(f.handle((s, failure) -> {
                if (failure != null || s.status() == Settlement.Status.FAILED) {
                    LOG.log(Level.WARNING, "policy ''" + p.policy() + "'': settling a request at " + cost
                            + " failed; its reservation of " + p.reserved() + " stands", failure);
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(settled.toArray(CompletableFuture[]::new));
    }

    private static void once(String what, String message) {
        if (TOLD.add(what)) {
            LOG.log(Level.WARNING, message);
        }
    }
}
