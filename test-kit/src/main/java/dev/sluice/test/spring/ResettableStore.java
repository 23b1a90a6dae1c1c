package dev.sluice.test.spring;

import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Instant;

/**
 * The in-process store of a Spring test, emptied before each test while the application keeps the limiters it
 * made at start-up.
 *
 * <p>The HTTP filters and {@code @RateLimited} make their limiters once, when the context starts, and a test
 * context is shared by the tests that ask for the same configuration. So the application is given a view, not
 * the store: the view's limiters ask the store's current generation on every call, and {@link #reset()} starts a
 * new, empty generation and puts the clock back at its start. The views are dynamic proxies so that they forward
 * every method of {@link RateLimiters}, {@link RateLimiter} and {@link PartitionedRateLimiter}, whatever the
 * version of the API, rather than a copy of today's list.
 */
final class ResettableStore implements AutoCloseable {
    private final ManualClock clock;
    private final Instant start;
    private final String keyPrefix;
    private final RateLimiters view;
    private volatile RateLimiters current;

    ResettableStore(ManualClock clock, String keyPrefix) {
        this.clock = clock;
        this.start = clock.instant();
        this.keyPrefix = keyPrefix;
        this.current = LocalRateLimiters.create(clock, keyPrefix);
        this.view = (RateLimiters) follower(RateLimiters.class, () -> current);
    }

    /** The store as the application sees it: the same object across resets. */
    RateLimiters rateLimiters() {
        return view;
    }

    /** Every key back to a full budget (a new, empty store) and the clock back to where it started. */
    synchronized void reset() {
        RateLimiters previous = current;
        clock.set(start);
        current = LocalRateLimiters.create(clock, keyPrefix);
        previous.close();
    }

    @Override
    public synchronized void close() {
        current.close();
    }

    /** What a view forwards to, asked on every call. */
    private interface Forward {
        Object target();
    }

    /**
     * A proxy of {@code type} forwarding every call to {@code forward}'s target. On the store's view, a call that
     * makes a limiter answers a view of that limiter, made again by the same call on each new generation.
     */
    private Object follower(Class<?> type, Forward forward) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "test store view of " + forward.target();
                };
            }
            Class<?> returned = method.getReturnType();
            if (type == RateLimiters.class && (returned == RateLimiter.class || returned == PartitionedRateLimiter.class)) {
                return follower(returned, new Remade(method, args));
            }
            try {
                return method.invoke(forward.target(), args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
    }

    /** A limiter made by one call on the store, made again by the same call on each new generation. */
    private final class Remade implements Forward {
        private final Method make;
        private final Object[] args;
        private RateLimiters madeOn;
        private Object made;

        /** Makes the limiter at once, so a bad spec fails where the application asked for it. */
        Remade(Method make, Object[] args) {
            this.make = make;
            this.args = args;
            target();
        }

        @Override
        public synchronized Object target() {
            RateLimiters now = current;
            if (now != madeOn) {
                try {
                    made = make.invoke(now, args);
                } catch (InvocationTargetException e) {
                    if (e.getCause() instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw new IllegalStateException(e.getCause()); // making a limiter declares no checked exception
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
                madeOn = now;
            }
            return made;
        }
    }
}
