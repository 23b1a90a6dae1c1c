package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

final class DecisionListenerTest {

    @Test
    void all_throwingListener_stillReachesTheOthersInOrder() {
        List<String> heard = new ArrayList<>();
        DecisionListener throwing = (limiter, result, nanos) -> {
            heard.add("throwing");
            throw new IllegalStateException("broken listener");
        };
        DecisionListener recording = new DecisionListener() {
            @Override
            public void onDecision(String limiter, DecisionResult result, long nanos) {
                heard.add(limiter + " " + result.tag() + " " + nanos);
            }

            @Override
            public void onQueueChanged(String limiter, long queuedPermits) {
                heard.add(limiter + " queued " + queuedPermits);
            }
        };
        DecisionListener all = DecisionListener.all(List.of(throwing, recording));
        all.onDecision("login", DecisionResult.REFUSED, 42);
        all.onQueueChanged("login", 3);
        assertEquals(List.of("throwing", "login refused 42", "login queued 3"), heard);
    }

    @Test
    void all_copiesTheList() {
        List<DecisionListener> listeners = new ArrayList<>();
        DecisionListener all = DecisionListener.all(listeners);
        listeners.add((limiter, result, nanos) -> {
            throw new AssertionError("added after all(...)");
        });
        all.onDecision("login", DecisionResult.GRANTED, 1);
    }

    @Test
    void all_nullElement_throwsNullPointerException() {
        assertThrows(NullPointerException.class, () -> DecisionListener.all(Arrays.asList((DecisionListener) null)));
        assertThrows(NullPointerException.class, () -> DecisionListener.all(null));
    }
}
