package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.app.GatewayApp;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.NestedExceptionUtils;

/**
 * A policy with plans in each form of the {@code Sluice} filter: a client whose trusted proxy says {@code X-Plan: pro}
 * gets the pro limit (4), a client without a plan the free one (2), with the plan in {@code RateLimit-Policy}; and
 * {@code RequestRateLimiter}, which hands its limiter a key and no request, fails start-up naming the filter to use.
 */
final class GatewayPlansTest {
    private static final String ROUTES = "--spring.cloud.gateway.server.webflux.routes";
    private static Backend backend;
    private static ConfigurableApplicationContext gateway;
    private static int port;

    static List<String> planned(String... names) {
        List<String> args = new ArrayList<>();
        for (String name : names) {
            String p = "--sluice.policies." + name + ".";
            args.addAll(List.of(p + "algorithm=fixed-window", p + "window=10m", p + "plan-from=header:X-Plan",
                    p + "default-plan=free", p + "plans.free.permit-limit=2", p + "plans.pro.permit-limit=4"));
        }
        return args;
    }

    @BeforeAll
    static void start() throws Exception {
        backend = Backend.ok();
        port = GatewayFormsTest.freePort();
        List<String> args = new ArrayList<>(planned("short-plans", "long-plans", "list-plans"));
        args.addAll(List.of("--server.port=" + port, "--spring.main.web-application-type=reactive",
                "--sluice.client.trusted-proxies=127.0.0.1"));
        args.addAll(backend.route(0, "short", "/short/**", "[0]=Sluice=short-plans"));
        args.addAll(backend.route(1, "long", "/long/**", "[0].name=Sluice", "[0].args.policies=long-plans"));
        args.addAll(backend.route(2, "list", "/list/**", "[0].name=Sluice", "[0].args.policies[0]=list-plans"));
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


    @ParameterizedTest
    @ValueSource(strings = {"/short/x", "/long/x", "/list/x"})
    void everyForm_eachClientGetsItsPlansLimit(String path) throws Exception {
        List<Integer> pro = new ArrayList<>();
        String proHead = null;
        for (int i = 0; i < 5; i++) {
            GatewayFormsTest.Answer a = send(path, "X-Forwarded-For: 192.0.2.1", "X-Plan: pro");
            pro.add(a.status());
            proHead = proHead == null ? a.head() : proHead;
        }
        assertThat(pro).containsExactly(200, 200, 200, 200, 429);
        assertThat(proHead).containsPattern("RateLimit-Policy: \"[a-z]+-plans\";q=4;w=600;plan=\"pro\"");
        List<Integer> free = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            free.add(send(path, "X-Forwarded-For: 192.0.2.2").status());
        }
        assertThat(free).containsExactly(200, 200, 429);
    }

    @Test
    void requestRateLimiter_policyWithPlans_failsStartUpNamingTheSluiceFilter() throws Exception {
        List<String> args = new ArrayList<>(planned("per-plan"));
        String route = ROUTES + "[0].";
        args.addAll(List.of("--server.port=" + GatewayFormsTest.freePort(), "--spring.main.web-application-type=reactive",
                route + "id=guarded", route + "uri=http://127.0.0.1:9", route + "predicates[0]=Path=/**",
                route + "filters[0].name=RequestRateLimiter",
                route + "filters[0].args[sluice-rate-limiter.policy]=per-plan"));
        assertThatThrownBy(() -> SpringApplication.run(GatewayApp.class, args.toArray(String[]::new)).close())
                .satisfies(e -> assertThat(NestedExceptionUtils.getMostSpecificCause(e).getMessage())
                        .contains("route 'guarded'", "'per-plan', whose limit is chosen per plan (header:X-Plan)",
                                "Sluice=per-plan"));
    }

    /** One request with {@code headers}, from 127.0.0.1 (the trusted proxy). */
    private static GatewayFormsTest.Answer send(String path, String... headers) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            StringBuilder request = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: t\r\n");
            for (String h : headers) {
                request.append(h).append("\r\n");
            }
            out.write(request.append("Connection: close\r\n\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String head = end < 0 ? text : text.substring(0, end);
            return new GatewayFormsTest.Answer(Integer.parseInt(head.split(" ", 3)[1]), head,
                    end < 0 ? "" : text.substring(end + 4));
        }
    }
}
