package dev.sluice.test.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.core.annotation.AliasFor;

/**
 * On a Spring Boot test: Sluice decides on an in-process store on a {@link dev.sluice.limiter.local.ManualClock},
 * whatever backend the application configures (Hazelcast, JCache or in-process). The clock is a bean the test
 * injects and advances, so {@code @RateLimited} methods, the routes of {@code sluice.*} (servlet and WebFlux)
 * and the gateway filter are tested without waiting.
 * <pre>{@code
 * @SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
 * @AutoConfigureSluiceTest
 * class ApiLimitTest {
 *     @Autowired ManualClock clock;
 *     ...
 *         clock.advance(Duration.ofMinutes(1));
 * }
 * }</pre>
 *
 * <p>Before each test the store is emptied (every key at a full budget) and the clock goes back to its start,
 * the start of a minute, an hour and a day, so the tests of one class, which share the application, do not
 * share budgets. The store's {@link dev.sluice.limiter.RateLimiters} is the primary bean of its type; an
 * application's own is left in the context, unused by Sluice. The local pre-filter
 * ({@code sluice.prefilter.mode}) is off: it keeps refusals by the machine's monotonic time, which the manual
 * clock does not move.
 *
 * <p>The backend's own infrastructure still starts: a Hazelcast member configured by Boot joins its cluster. An
 * application that has Hazelcast only for Sluice leaves it out with
 * {@code @AutoConfigureSluiceTest(excludeAutoConfiguration = HazelcastAutoConfiguration.class)}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureSluiceTest {

    /** Auto-configurations the test leaves out, such as Boot's {@code HazelcastAutoConfiguration}; none by default. */
    @AliasFor(annotation = ImportAutoConfiguration.class, attribute = "exclude")
    Class<?>[] excludeAutoConfiguration() default {};
}
