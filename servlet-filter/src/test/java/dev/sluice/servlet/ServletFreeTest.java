package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Everything a non-servlet server (Spring WebFlux) loads to decide a request names no servlet type, so
 * such an application needs no servlet API: only {@link RateLimitFilter} and its adapter do.
 */
final class ServletFreeTest {
    private static final List<Class<?>> SHARED = List.of(HttpRateLimiter.class, HttpDecision.class,
            HttpRequestView.class, RateLimitFilterConfig.class, RateLimitFilterConfig.Builder.class,
            RateLimitFilterConfig.Applied.class, RateLimitPolicy.class, Route.class, ClientIdentityResolver.class,
            TrustedProxies.class, PolicyStatistics.class, PropertiesReader.class, NamedIdentity.class, Responses.class,
            Responses.Answer.class, Decision.class, Decision.Outcome.class, RequestMethods.class, Paths.class);

    @Test
    void sharedClasses_nameNoServletType() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (Class<?> c : SHARED) {
            String file = c.getName().substring(c.getPackageName().length() + 1) + ".class";
            try (InputStream in = c.getResourceAsStream(file)) {
                String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                if (bytes.contains("jakarta/servlet")) {
                    offenders.add(c.getName());
                }
            }
        }
        assertEquals(List.of(), offenders);
    }

    /** The check above can fail: the servlet filter itself names servlet types. */
    @Test
    void check_findsServletTypes() throws IOException {
        for (Class<?> c : List.of(RateLimitFilter.class, ServletRequestView.class)) {
            try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
                assertTrue(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).contains("jakarta/servlet"));
            }
        }
    }
}
