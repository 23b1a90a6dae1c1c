package dev.sluice.hazelcast;

import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.IndeterminateOperationStateException;
import com.hazelcast.core.OperationTimeoutException;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import com.hazelcast.spi.exception.RetryableException;
import com.hazelcast.spi.exception.TargetDisconnectedException;
import dev.sluice.limiter.store.FutureFailures;

/**
 * What a Hazelcast failure means to the runtime, in one place.
 *
 * <p>Hazelcast's transient failures (a member left, a lost connection, a client offline, a migrating
 * partition, an operation timeout) are retryable. Hazelcast delivers a step at least once, so a retried rate
 * step that did run charges its permits twice: a limiter may then refuse a little early, never admit more
 * than its limit. A concurrency acquisition is idempotent: its retry carries the same nonce and is answered
 * with the lease the first run granted. Hazelcast's own {@link IllegalStateException}s (a client offline, an
 * instance shut down) are wrapped in a {@link HazelcastException}, since the runtime treats a plain
 * {@code IllegalStateException} as a usage error; a member that cannot read Sluice's classes becomes an
 * {@code IllegalStateException} that says what to install, which no failure mode hides.
 */
final class Failures {
    private Failures() {}

    /** Maps a Hazelcast failure onto what the runtime understands; see the class comment. */
    static Throwable translate(Throwable failure) {
        Throwable t = FutureFailures.unwrap(failure);
        if (isSerializationProblem(t)) {
            return new IllegalStateException(missingClassesMessage(t.getMessage()), t);
        }
        if ((t instanceof IllegalStateException || t instanceof IllegalArgumentException)
                && t.getClass().getName().startsWith("com.hazelcast.")) {
            return new HazelcastException("Hazelcast could not run the decision: " + t, t);
        }
        return t;
    }

    /** True if the step may be retried within its deadline; see the class comment. */
    static boolean isRetryable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RetryableException || t instanceof TargetDisconnectedException
                    || t instanceof HazelcastClientOfflineException || t instanceof OperationTimeoutException
                    || t instanceof IndeterminateOperationStateException) {
                return true;
            }
        }
        return false;
    }

    static boolean isSerializationProblem(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SupportedVersions.Unlinked) {
                return false; // this process's own Hazelcast, not a member's classpath
            }
            if (t instanceof HazelcastSerializationException || t instanceof ClassNotFoundException
                    || t instanceof NoClassDefFoundError) {
                return true;
            }
        }
        return false;
    }

    /** What to install where, for a member (or client) that cannot read Sluice's classes. */
    static String missingClassesMessage(String detail) {
        int id = SluiceSerializerFactory.factoryId();
        return "the Hazelcast cluster cannot run Sluice's entry processors (" + detail + "). Every member needs"
                + " the jars dev.sluice:hazelcast-impl and dev.sluice:limiter-api (the same version as this"
                + " application) on its classpath and Sluice's serialization factory registered: call"
                + " SluiceHazelcast.configure(config) on embedded members, or start members with"
                + " 'java -cp hazelcast.jar:hazelcast-impl.jar:limiter-api.jar dev.sluice.hazelcast.SluiceMember',"
                + " or add to hazelcast.yaml: serialization: data-serializable-factories: [{factory-id: " + id
                + ", class-name: " + SluiceSerializerFactory.class.getName() + "}] (in the Hazelcast Docker image,"
                + " put the jars in /opt/hazelcast/ext/). Clients need SluiceHazelcast.configure(clientConfig).";
    }
}
