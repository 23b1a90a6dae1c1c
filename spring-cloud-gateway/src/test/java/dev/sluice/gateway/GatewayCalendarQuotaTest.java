package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.app.GatewayApp;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A gateway route with a monthly quota in a customer's zone ({@code calendar-window}, {@code period: month},
 * {@code zone: Europe/Paris}): the quota's requests pass, the next is refused until the 1st in Paris, and the
 * headers say so.
 */
final class GatewayCalendarQuotaTest {
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    private static Backend backend;
    private static ConfigurableApplicationContext gateway;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        backend = Backend.ok();
        port = GatewayFormsTest.freePort();
        List<String> args = new ArrayList<>(List.of("--server.port=" + port,
                "--spring.main.web-application-type=reactive",
                "--sluice.policies.monthly.algorithm=calendar-window",
                "--sluice.policies.monthly.permit-limit=3",
                "--sluice.policies.monthly.period=month",
                "--sluice.policies.monthly.zone=Europe/Paris"));
        args.addAll(backend.route(0, "reports", "/reports/**", "[0]=Sluice=monthly"));
        gateway = SpringApplication.run(GatewayApp.class, args.toArray(String[]::new));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (backend != null) {
            backend.close();
        }
    }

    @Test
    void monthlyQuota_passesTheQuota_thenRefusesUntilTheFirstInParis() throws Exception {
        List<GatewayFormsTest.Answer> answers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            answers.add(GatewayFormsTest.send(port, "GET", "/reports/x"));
        }
        long sent = System.currentTimeMillis();
        GatewayFormsTest.Answer refused = GatewayFormsTest.send(port, "GET", "/reports/x");
        long answered = System.currentTimeMillis();
        assertThat(answers).extracting(GatewayFormsTest.Answer::status).containsExactly(200, 200, 200);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(answers.get(0).head()).contains("RateLimit-Policy: \"monthly\";q=3;w=2629746");
        // Retry-After counts to the next 1st at midnight in Paris, in whole seconds rounded up, from when the
        // gateway decided: between sending and the answer (unless the month turned meanwhile).
        long nextMonth = LocalDate.ofInstant(java.time.Instant.ofEpochMilli(sent), PARIS).withDayOfMonth(1)
                .plusMonths(1).atStartOfDay(PARIS).toInstant().toEpochMilli();
        Matcher retryAfter = Pattern.compile("(?im)^Retry-After: (\\d+)$").matcher(refused.head());
        assertThat(retryAfter.find()).as(refused.head()).isTrue();
        long seconds = Long.parseLong(retryAfter.group(1));
        assertThat(seconds).isBetween(ceilSeconds(nextMonth - answered), ceilSeconds(nextMonth - sent));
        assertThat(refused.body()).contains("\"violated-policies\":[\"monthly\"]");
    }

    private static long ceilSeconds(long millis) {
        return Math.floorDiv(millis + 999, 1_000);
    }
}
