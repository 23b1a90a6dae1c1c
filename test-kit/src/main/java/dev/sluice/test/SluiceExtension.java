package dev.sluice.test;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives each test an in-process store on a clock that moves only when the test
 * advances it: parameters of type {@link ManualClock} and {@link RateLimiters} (of the test method, and of its
 * {@code @BeforeEach} and {@code @AfterEach} methods, which see the same two) are resolved to a fresh clock and
 * a fresh, empty store, which is closed after the test.
 * <pre>{@code
 * @ExtendWith(SluiceExtension.class)
 * class LoginLimitTest {
 *     @Test
 *     void sixthAttempt_isRefused_untilTheWindowMoves(RateLimiters limiters, ManualClock clock) {
 *         RateLimiter login = limiters.limiter("login", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
 *         for (int i = 0; i < 5; i++) {
 *             assertThat(login.tryAcquire(1)).isAcquired();
 *         }
 *         assertThat(login.tryAcquire(1)).isRefused().hasRetryAfter(Duration.ofMinutes(1));
 *         clock.advance(Duration.ofMinutes(1));
 *         assertThat(login.tryAcquire(1)).isAcquired();
 *     }
 * }
 * }</pre>
 * The clock starts at {@link ManualClock#ManualClock()}'s instant, the start of a minute, an hour and a day, so
 * fixed windows begin with the test.
 */
public final class SluiceExtension implements ParameterResolver, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SluiceExtension.class);

    /** One test's clock and store. */
    private record Fixture(ManualClock clock, RateLimiters limiters) {
        static Fixture create() {
            ManualClock clock = new ManualClock();
            return new Fixture(clock, LocalRateLimiters.create(clock));
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return (type == ManualClock.class || type == RateLimiters.class) && context.getTestMethod().isPresent();
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        // get and put, not computeIfAbsent: the one way both JUnit 5 and JUnit 6 offer without a deprecation.
        // A test's parameters are resolved on its own thread, one after another.
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        Fixture fixture = store.get(Fixture.class, Fixture.class);
        if (fixture == null) {
            fixture = Fixture.create();
            store.put(Fixture.class, fixture);
        }
        return parameter.getParameter().getType() == ManualClock.class ? fixture.clock() : fixture.limiters();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Fixture fixture = context.getStore(NAMESPACE).remove(Fixture.class, Fixture.class);
        if (fixture != null) {
            fixture.limiters().close();
        }
    }
}
