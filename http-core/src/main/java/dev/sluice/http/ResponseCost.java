package dev.sluice.http;

import dev.sluice.limiter.LimitSpec;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * How a policy's grant is settled from the response, once the request has run ({@code Lease.settle}): the route's
 * cost is the reservation, taken before the application runs, and the response says what the request really cost.
 *
 * <ul>
 *   <li>{@link #countStatuses() count-statuses}: only responses with one of these statuses count; any other settles
 *       to 0, which gives the reservation back. Failed logins: {@code 401, 403}.
 *   <li>{@link #costHeader() cost-header}: the cost is the whole number the application (or, behind a gateway, the
 *       backend) writes in this response header, such as the tokens an LLM call used or the bytes a download sent.
 *       It is a response header, which a client cannot set. A header that is absent or not a whole number leaves the
 *       reservation as it is (logged once per policy); a cost above the policy's limit, the most one decision may
 *       take, is charged as the limit (logged once too).
 * </ul>
 * Both together: a response whose status is not counted settles to 0; one that is, to its header's cost.
 *
 * @param countStatuses the statuses that count, or empty for all
 * @param costHeader the response header carrying the cost, or {@code null} for the reservation
 */
public record ResponseCost(Set<Integer> countStatuses, String costHeader) {

    /**
     * Validates the rule.
     *
     * @throws IllegalArgumentException if a status is not between 100 and 599, the header is not a header name, or
     *     neither is given
     */
    public ResponseCost {
        Objects.requireNonNull(countStatuses, "countStatuses");
        for (Integer status : countStatuses) {
            if (status == null || status < 100 || status > 599) {
                throw new IllegalArgumentException("count-statuses must be HTTP statuses between 100 and 599, was "
                        + status);
            }
        }
        countStatuses = Set.copyOf(new TreeSet<>(countStatuses));
        if (costHeader != null && !isToken(costHeader)) {
            throw new IllegalArgumentException("cost-header must be a header name (letters, digits and"
                    + " !#$%&'*+-.^_`|~), was '" + costHeader + "'");
        }
        if (countStatuses.isEmpty() && costHeader == null) {
            throw new IllegalArgumentException("a response cost needs count-statuses, a cost-header or both");
        }
    }

    /** Only responses with one of {@code statuses} count; others settle to 0. */
    public static ResponseCost countStatuses(Integer... statuses) {
        return new ResponseCost(Set.of(statuses), null);
    }

    /** The cost is the whole number in the response header {@code header}. */
    public static ResponseCost fromHeader(String header) {
        return new ResponseCost(Set.of(), Objects.requireNonNull(header, "header"));
    }

    /**
     * What a response settles a grant at, or -1 to leave the reservation as it is.
     *
     * @param headers a response header's value by name, or {@code null} when absent
     * @param unread told, with what was found, when the header is absent or not a whole number
     * @param aboveLimit told, with the cost read, when it is above {@link LimitSpec#MAX_LIMIT}, the most one settlement
     *     charges (a cost above the policy's limit is charged: the key owes what its budget cannot pay)
     */
    long cost(long reserved, int status, Function<String, String> headers, Runnable unread,
            java.util.function.LongConsumer aboveLimit) {
        if (!countStatuses.isEmpty() && !countStatuses.contains(status)) {
            return 0;
        }
        if (costHeader == null) {
            return reserved;
        }
        String text = headers.apply(costHeader);
        long cost;
        try {
            cost = text == null ? -1 : Long.parseLong(text.strip());
        } catch (NumberFormatException malformed) {
            cost = -1;
        }
        if (cost < 0) {
            unread.run();
            return -1;
        }
        if (cost > LimitSpec.MAX_LIMIT) {
            aboveLimit.accept(cost);
            return LimitSpec.MAX_LIMIT;
        }
        return cost;
    }

    private static boolean isToken(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
                return false;
            }
        }
        return true;
    }
}
