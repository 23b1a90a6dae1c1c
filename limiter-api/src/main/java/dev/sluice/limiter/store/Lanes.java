package dev.sluice.limiter.store;

import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.CoalescingQueueFullException;
import dev.sluice.limiter.Durability;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The {@link Coalescer}'s batching policy, as {@link Coalescing} sets it: which decisions go together
 * in one hop, and when. Natural batching per key, with no timer: each key (and map) with something in
 * flight has a {@link Lane} with one hop in flight at most (but see the stall escape in {@link #arrive}).
 * A decision for a key with nothing in flight is a hop of its own, at once: a lone caller pays nothing
 * extra. A decision for a key with a hop in flight waits in the lane's bounded queue; when the hop returns
 * ({@link #next}), whatever queued meanwhile (up to {@code maxBatchRequests} requests and about
 * {@code maxBatchBytes} of payload) is the next hop, one run of them all where the key lives; the rest waits for
 * the one after. A full queue fails the decision at once with a retryable
 * {@link CoalescingQueueFullException} (nothing was sent, so a retry cannot charge twice). Coalescing off,
 * every decision is a hop of its own, at once, and nothing is ever queued.
 *
 * <p>Order across the stall escape is fairness, not safety. Requests leave a lane in arrival order, and
 * one hop's requests are decided in that order, but hops in flight together for one key are separate
 * calls, which the store may run in any order (a hop retried after a member left runs after a later
 * one); so past {@code stallMillis} a later arrival may be decided first, and be granted where an earlier
 * one is refused. Exactness does not depend on that order: every step runs atomically where the key lives,
 * each on the state the previous one wrote, so a limit of N still grants at most N
 * (exactly N when demand exceeds it). A release cannot overtake its own acquisition (it carries the
 * grant's token), and a renewal run after its lease's release is refused, never recreating it. Shown with
 * {@code stallMillis} 0, where every arrival behind a busy hop is one more hop in flight
 * ({@code HazelcastCoalescingStallTest}).
 *
 * <p>Why lanes per key, not per partition or per owner member: a hop gains only where its requests share
 * a key (one run, one write, one backup of the final state instead of one each). Keys that merely share a
 * partition still cost one partition operation and one backup each (one invocation per key, or, in one
 * multi-key operation, a partition operation whose answer Hazelcast 5.7 sends before its backups are
 * acknowledged), so holding a decision back behind another key's hop costs it a round trip for nothing.
 * Measured on many uniform keys, both coarser groupings (lanes per partition, and one message per owner
 * member with every partition's keys run on arrival) fell further below the uncoalesced rate than lanes per
 * key did (the benchmark pages have the runs).
 *
 * <p>A queued request whose future is already done (cancelled, or abandoned by a caller that timed out)
 * or whose deadline has passed is dropped when the next hop is taken, never sent: the runtime cancels the
 * future of an acquisition whose caller gave up (timed out, cancelled), blocking or not, so a queued one
 * is never charged. Expired requests are failed outside the lane's lock.
 *
 * <p>A lane exists only while its key has a hop in flight: the hop that leaves it idle removes it, so
 * there are at most as many lanes as decisions in flight.
 */
final class Lanes {
    private final Coalescing coalescing;
    private final long stallNanos;
    /** The lanes of each durability's map: looked up by the request's own key string, nothing allocated. */
    private final Map<Durability, Home> lanes = new EnumMap<>(Durability.class);
    private final LongAdder dropped;
    private final LongAdder stalls;

    /**
     * @param dropped counts requests dropped unsent (their caller gave up, or their deadline passed)
     * @param stalls counts hops sent past {@code stallMillis} while another was in flight
     */
    Lanes(Coalescing coalescing, LongAdder dropped, LongAdder stalls) {
        this.coalescing = coalescing;
        this.stallNanos = TimeUnit.MILLISECONDS.toNanos(coalescing.stallMillis());
        this.dropped = dropped;
        this.stalls = stalls;
        for (Durability d : Durability.values()) {
            lanes.put(d, new Home());
        }
    }

    /** One map's lanes by key, with the one function that makes a lane here (not a new lambda per decision). */
    private static final class Home extends ConcurrentHashMap<String, Lane> {
        private static final long serialVersionUID = 1L;
        final transient Function<String, Lane> newLane = key -> new Lane(key, this);
    }

    /**
     * One key's queue and its hops in flight (normally at most one; one more per stall, see
     * {@link #arrive}); guarded by itself.
     */
    private static final class Lane {
        final String key;
        final Home home;
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        int inFlight;
        long lastSendNanos;
        /** Idle and out of {@link #home}: an arrival that still found it takes a new lane. */
        boolean retired;

        Lane(String key, Home home) {
            this.key = key;
            this.home = home;
        }
    }

    /**
     * What one hop sends: requests of one lane (one key and map), in arrival order, never empty.
     * {@link #lane} is {@code null} when coalescing is off.
     */
    static final class Hop {
        final Lane lane;
        final List<Pending> requests;
        /** Taken off the queue because their deadline passed; to be failed, never sent. */
        List<Pending> expired;

        Hop(Lane lane, List<Pending> requests) {
            this.lane = lane;
            this.requests = requests;
        }
    }

    /**
     * Takes an arriving decision and returns the hop its caller sends now, or {@code null} when it waits for
     * the hop in flight on its key (or was refused: a full queue). The hop is the decision alone when
     * nothing is in flight on the key (or coalescing is off). One escape from head-of-line blocking:
     * when the lane's last hop left more than {@code stallMillis} ago (a slow step, a member in trouble),
     * this arrival takes what queued, and itself, as an extra hop in flight, rather than wait behind it;
     * requests still leave in arrival order, though the store may run the hops in flight in any order (see
     * the class comment).
     */
    Hop arrive(Pending p) {
        if (!coalescing.enabled()) {
            return new Hop(null, List.of(p));
        }
        Home home = lanes.get(p.request.durability());
        Hop taken;
        while (true) {
            Lane lane = home.computeIfAbsent(p.request.key(), home.newLane);
            synchronized (lane) {
                if (lane.retired) {
                    continue; // left idle and removed since this thread found it
                }
                long now = System.nanoTime();
                if (lane.inFlight == 0) {
                    lane.inFlight = 1;
                    lane.lastSendNanos = now;
                    return new Hop(lane, List.of(p));
                }
                if (lane.queue.size() >= coalescing.maxQueuedPerKey()) {
                    taken = null;
                } else {
                    lane.queue.add(p);
                    if (stallNanos > 0 && now - lane.lastSendNanos <= stallNanos) {
                        return null;
                    }
                    taken = take(lane, now);
                    if (!taken.requests.isEmpty()) {
                        stalls.increment();
                        lane.inFlight++;
                        lane.lastSendNanos = now;
                    }
                }
            }
            break;
        }
        if (taken == null) {
            p.completeExceptionally(new CoalescingQueueFullException(coalescing.maxQueuedPerKey()));
            return null;
        }
        return sendable(taken);
    }

    /**
     * A hop came back: returns the next hop of its lane (what queued meanwhile, within the batch bounds), or
     * {@code null} when nothing did: the lane is then idle, and removed unless another hop is in flight;
     * called once per hop.
     */
    Hop next(Hop done) {
        Lane lane = done.lane;
        if (lane == null) {
            return null;
        }
        Hop taken;
        synchronized (lane) {
            long now = System.nanoTime();
            taken = lane.queue.isEmpty() ? null : take(lane, now);
            if (taken == null || taken.requests.isEmpty()) {
                // this hop's slot is released; take() leaves the queue empty when it takes nothing
                if (--lane.inFlight == 0) {
                    lane.retired = true;
                    lane.home.remove(lane.key, lane);
                }
            } else {
                lane.lastSendNanos = now; // this hop's slot passes to the next one
            }
        }
        return taken == null ? null : sendable(taken);
    }

    /** Takes the next hop from the head of the queue, dropping what must not be sent; holds the lane's lock. */
    private Hop take(Lane lane, long now) {
        Hop hop = new Hop(lane, new ArrayList<>());
        int bytes = 0;
        while (!lane.queue.isEmpty() && hop.requests.size() < coalescing.maxBatchRequests()) {
            Pending p = lane.queue.peek();
            if (p.isDone()) {
                lane.queue.poll();
                dropped.increment();
                continue;
            }
            if (p.deadline != Long.MAX_VALUE && now - p.deadline >= 0) {
                lane.queue.poll();
                if (hop.expired == null) {
                    hop.expired = new ArrayList<>();
                }
                hop.expired.add(p);
                continue;
            }
            if (!hop.requests.isEmpty() && bytes + p.bytes() > coalescing.maxBatchBytes()) {
                break;
            }
            lane.queue.poll();
            bytes += p.bytes();
            hop.requests.add(p);
        }
        return hop;
    }

    /** Fails what expired in {@code taken} (outside the lane's lock); the hop, or null when nothing is left. */
    private Hop sendable(Hop taken) {
        if (taken.expired != null) {
            for (Pending p : taken.expired) {
                dropped.increment();
                p.completeExceptionally(new TimeoutException("the decision's deadline passed before it was sent"));
            }
        }
        return taken.requests.isEmpty() ? null : taken;
    }

    /** Requests waiting in every lane (not those in flight). */
    int queued() {
        int n = 0;
        for (Home home : lanes.values()) {
            for (Lane lane : home.values()) {
                synchronized (lane) {
                    n += lane.queue.size();
                }
            }
        }
        return n;
    }

    @Override
    public String toString() {
        return !coalescing.enabled() ? "no coalescing" : "Lanes[maxBatchRequests=" + coalescing.maxBatchRequests()
                + ", maxBatchBytes=" + coalescing.maxBatchBytes() + ", maxQueuedPerKey="
                + coalescing.maxQueuedPerKey() + ", stallMillis=" + coalescing.stallMillis() + "]";
    }
}
