package dev.sluice.limiter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How a limiter behaves around its store: local queueing, failure handling, retries, lease renewal and
 * listeners. Immutable; build with {@link #builder()} or start from {@link #defaults()} with
 * {@link #toBuilder()}.
 */
public final class LimiterOptions {
    /** The most replicas {@link Builder#fallbackReplicas(int)} accepts. */
    public static final int MAX_FALLBACK_REPLICAS = 100_000;
    private static final LimiterOptions DEFAULTS = builder().build();

    private final long queueLimit;
    private final QueueOrder queueOrder;
    private final FailureMode failureMode;
    private final int maxRetries;
    private final Duration decisionTimeout;
    private final Duration renewInterval;
    private final Duration pollInterval;
    private final Durability durability;
    private final boolean replaceForeignState;
    private final List<DecisionListener> listeners;
    private final int fallbackReplicas;

    private LimiterOptions(Builder b) {
        this.queueLimit = b.queueLimit;
        this.queueOrder = b.queueOrder;
        this.failureMode = b.failureMode;
        this.maxRetries = b.maxRetries;
        this.decisionTimeout = b.decisionTimeout;
        this.renewInterval = b.renewInterval;
        this.pollInterval = b.pollInterval;
        this.durability = b.durability;
        this.replaceForeignState = b.replaceForeignState;
        this.listeners = List.copyOf(b.listeners);
        this.fallbackReplicas = b.fallbackReplicas;
    }

    /** No queue, {@link FailureMode#THROW}, 2 retries, a 1 s decision timeout, replicated state. */
    public static LimiterOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.queueLimit = queueLimit;
        b.queueOrder = queueOrder;
        b.failureMode = failureMode;
        b.maxRetries = maxRetries;
        b.decisionTimeout = decisionTimeout;
        b.renewInterval = renewInterval;
        b.pollInterval = pollInterval;
        b.durability = durability;
        b.replaceForeignState = replaceForeignState;
        b.listeners.addAll(listeners);
        b.fallbackReplicas = fallbackReplicas;
        return b;
    }

    /** Permits (not requests) that may wait in the local queue; 0 refuses at once. */
    public long queueLimit() { return queueLimit; }

    public QueueOrder queueOrder() { return queueOrder; }

    public FailureMode failureMode() { return failureMode; }

    /** Retries of a retryable store failure, all within {@link #decisionTimeout()}. */
    public int maxRetries() { return maxRetries; }

    /** The longest a caller waits for one decision from the store, retries included. */
    public Duration decisionTimeout() { return decisionTimeout; }

    /**
     * How often a granted concurrency lease is renewed, or {@code null} for a third of the lease
     * duration.
     */
    public Duration renewInterval() { return renewInterval; }

    /**
     * The longest a queued acquisition goes without asking the store again. A queued request retries at
     * its refusal's retry-after or after this interval, whichever is sooner; concurrency limiters, whose
     * refusals carry no retry-after, poll at this interval (and at once when a lease of this process is
     * released).
     */
    public Duration pollInterval() { return pollInterval; }

    public Durability durability() { return durability; }

    /** Whether a key holding another algorithm's (or another shape's) state is started over; see the builder. */
    public boolean replaceForeignState() { return replaceForeignState; }

    public List<DecisionListener> listeners() { return listeners; }

    /**
     * How many replicas {@link FailureMode#LOCAL} divides the limit by, when configured; see
     * {@link Builder#fallbackReplicas(int)}.
     */
    public OptionalInt fallbackReplicas() {
        return fallbackReplicas == 0 ? OptionalInt.empty() : OptionalInt.of(fallbackReplicas);
    }

    @Override
    public String toString() {
        return "LimiterOptions[queueLimit=" + queueLimit + ", queueOrder=" + queueOrder + ", failureMode="
                + failureMode + ", maxRetries=" + maxRetries + ", decisionTimeout=" + decisionTimeout
                + ", renewInterval=" + renewInterval + ", pollInterval=" + pollInterval + ", durability=" + durability
                + (replaceForeignState ? ", replaceForeignState" : "") + ", listeners=" + listeners.size()
                + (fallbackReplicas == 0 ? "" : ", fallbackReplicas=" + fallbackReplicas) + "]";
    }

    /** Builds {@link LimiterOptions}. Each setter validates its argument at once. */
    public static final class Builder {
        private long queueLimit = 0;
        private QueueOrder queueOrder = QueueOrder.OLDEST_FIRST;
        private FailureMode failureMode = FailureMode.THROW;
        private int maxRetries = 2;
        private Duration decisionTimeout = Duration.ofSeconds(1);
        private Duration renewInterval;
        private Duration pollInterval = Duration.ofMillis(500);
        private Durability durability = Durability.REPLICATED;
        private boolean replaceForeignState;
        private final List<DecisionListener> listeners = new ArrayList<>();
        private int fallbackReplicas;

        private Builder() {}

        /** Permits that may wait in the local queue; default 0 (refuse at once). */
        public Builder queueLimit(long permits) {
            this.queueLimit = Checks.checkRange("queueLimit", permits, 0, Long.MAX_VALUE / 2);
            return this;
        }

        /** Default {@link QueueOrder#OLDEST_FIRST}. */
        public Builder queueOrder(QueueOrder order) {
            this.queueOrder = Objects.requireNonNull(order, "queueOrder");
            return this;
        }

        /** Default {@link FailureMode#THROW}. */
        public Builder failureMode(FailureMode mode) {
            this.failureMode = Objects.requireNonNull(mode, "failureMode");
            return this;
        }

        /** Default 2; between 0 and 10. */
        public Builder maxRetries(int retries) {
            this.maxRetries = (int) Checks.checkRange("maxRetries", retries, 0, 10);
            return this;
        }

        /** Default 1 s; between 1 ms and 5 minutes. */
        public Builder decisionTimeout(Duration timeout) {
            Checks.toMillis("decisionTimeout", timeout, 1, Duration.ofMinutes(5).toMillis());
            this.decisionTimeout = timeout;
            return this;
        }

        /** Default: a third of the lease duration; at least 10 ms. Must be shorter than the lease duration. */
        public Builder renewInterval(Duration interval) {
            Checks.toMillis("renewInterval", interval, 10, LimitSpec.MAX_DURATION.toMillis());
            this.renewInterval = interval;
            return this;
        }

        /** Default 500 ms; between 1 ms and 1 minute. */
        public Builder pollInterval(Duration interval) {
            Checks.toMillis("pollInterval", interval, 1, Duration.ofMinutes(1).toMillis());
            this.pollInterval = interval;
            return this;
        }

        /** Default {@link Durability#REPLICATED}. */
        public Builder durability(Durability durability) {
            this.durability = Objects.requireNonNull(durability, "durability");
            return this;
        }

        /**
         * Off by default: a key that holds another algorithm's state, or a composite of another shape, is refused
         * with {@link IllegalStateException}. On, such state is deleted (one atomic step that deletes only what
         * this spec cannot read) and the decision made on a fresh key: for changing a limiter's algorithm on
         * purpose. Every replica still on the old spec then starts the key over for its own in turn, each
         * time with a full budget, so switch every replica at once.
         */
        public Builder replaceForeignState(boolean replace) {
            this.replaceForeignState = replace;
            return this;
        }

        /** Adds a listener for every decision; none by default. */
        public Builder listener(DecisionListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** Replaces every listener added so far with {@code listeners}, in order. */
        public Builder listeners(List<? extends DecisionListener> listeners) {
            List<DecisionListener> checked = new ArrayList<>(listeners.size());
            for (DecisionListener l : listeners) {
                checked.add(Objects.requireNonNull(l, "listener"));
            }
            this.listeners.clear();
            this.listeners.addAll(checked);
            return this;
        }

        /**
         * The number of application replicas that decide locally under {@link FailureMode#LOCAL} while the store
         * is away: each decides on the limit divided by it. Unset by default: then the cluster's membership when the
         * store last answered (an embedded Hazelcast member's cluster), and where a store cannot know its
         * replicas (a Hazelcast client, JCache) a limiter with {@link FailureMode#LOCAL} cannot be created without
         * it. When both are known the larger decides. Between 1 and {@value LimiterOptions#MAX_FALLBACK_REPLICAS}.
         */
        public Builder fallbackReplicas(int replicas) {
            this.fallbackReplicas = (int) Checks.checkRange("fallbackReplicas", replicas, 1, MAX_FALLBACK_REPLICAS);
            return this;
        }

        public LimiterOptions build() {
            return new LimiterOptions(this);
        }
    }
}
