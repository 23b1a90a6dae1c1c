package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.app.GatewayApp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One real gateway (in-process store) in front of a real backend that records the paths it receives: each
 * configuration form enforces every policy it names; a policy named by {@code sluice.routes} and by a route is
 * charged once per request; and no spelling of an exhausted endpoint's path reaches the backend as that endpoint
 * on another route's budget.
 */
@ExtendWith(OutputCaptureExtension.class)
final class GatewayFormsTest {
    private static Backend backend;
    private static final Queue<String> received = new ConcurrentLinkedQueue<>();
    private static ConfigurableApplicationContext gateway;
    private static int port;
    private static String startUpOutput;

    @BeforeAll
    static void start(CapturedOutput output) throws Exception {
        backend = Backend.answering(exchange -> {
            received.add(exchange.getRequestURI().getRawPath());
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        port = freePort();
        List<String> args = new ArrayList<>(policies("wide=100", "short-tight=2", "long-tight=2", "list-tight=2",
                "rrl-tight=2", "login=2", "shared=5", "everyone=1000"));
        args.addAll(List.of("--server.port=" + port, "--spring.main.web-application-type=reactive",
                "--sluice.routes.shared.pattern=/both/x", "--sluice.routes.shared.policy=shared"));
        args.addAll(backend.route(0, "short", "/short/**", "[0]=Sluice=wide,short-tight"));
        args.addAll(backend.route(1, "long", "/long/**", "[0].name=Sluice", "[0].args.policies=wide, long-tight"));
        args.addAll(backend.route(2, "list", "/list/**", "[0].name=Sluice", "[0].args.policies[0]=wide",
                "[0].args.policies[1]=list-tight"));
        args.addAll(backend.route(3, "rrl", "/rrl/**", "[0].name=RequestRateLimiter",
                "[0].args[sluice-rate-limiter.policy]=wide, rrl-tight"));
        args.addAll(backend.route(4, "both", "/both/**", "[0]=Sluice=shared"));
        args.addAll(backend.route(5, "login", "/api/login", "[0]=Sluice=login"));
        args.addAll(backend.route(6, "rest", "/**", "[0]=Sluice=everyone"));
        gateway = SpringApplication.run(GatewayApp.class, args.toArray(String[]::new));
        startUpOutput = output.getAll();
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

    /** Bug: {@code Sluice=per-client,tight} bound only the first name (the shortcut's one field); tight never refused. */
    @Test
    void shortcutForm_everyPolicyNamedIsEnforced() throws Exception {
        assertEveryPolicyEnforced("/short/x", "short-tight");
    }

    @Test
    void longForm_commaSeparatedText_everyPolicyNamedIsEnforced() throws Exception {
        assertEveryPolicyEnforced("/long/x", "long-tight");
    }

    @Test
    void longForm_list_everyPolicyNamedIsEnforced() throws Exception {
        assertEveryPolicyEnforced("/list/x", "list-tight");
    }

    /** Bug: {@code sluice-rate-limiter.policy} took one name; {@code wide, rrl-tight} was an unknown policy (500). */
    @Test
    void requestRateLimiterForm_everyPolicyNamedIsEnforced() throws Exception {
        List<Answer> answers = List.of(send("GET", "/rrl/x"), send("GET", "/rrl/x"), send("GET", "/rrl/x"));
        assertThat(answers).as("the answers: %s", answers).extracting(Answer::status).containsExactly(200, 200, 429);
        assertThat(answers.get(2).head()).contains("RateLimit-Policy: \"rrl-tight\";q=2");
    }

    /** Bug: a policy named by sluice.routes and by a route's Sluice filter was charged twice (2 requests of 5). */
    @Test
    void policyInSluiceRoutesAndRouteFilter_chargedOncePerRequest_andWarnedAtStartUp() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            statuses.add(send("GET", "/both/x").status());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429);
        assertThat(startUpOutput).contains("policy 'shared' is named both by sluice.routes (pattern /both/x) and by"
                + " the Sluice filter of gateway route 'both'");
    }

    /**
     * The spellings of an exhausted {@code POST /api/login} that the servlet and WebFlux filters refuse, and
     * dot-segments that lead back to it from another route (the gateway matched {@code /x/../api/login} on
     * {@code /**} and forwarded it as it was, so a backend that normalises served the login on another budget):
     * each is refused (429), rejected (400) or unrouted (404), or reaches the backend as a path that does not
     * normalise to {@code /api/login}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/api/login//", "//api//login", "/api/./login", "/api/x/../login", "/api/login;a=b",
            "/api/login/;a=b", "/API/Login", "/api/%6cogin", "/api/login%09", "/api/login%0d", "/api/login%C2%A0",
            "/api/login%E2%80%8B", "/api/login.json", "/api/login%2f", "/api/login%5c", "/api/login/.", "/api/login?x=1",
            "/api/LOG%C4%B0N", "/api/%EF%BD%8Cogin", "/api/login%2e", "/api/login..;/", "/api/login%3b",
            "/x/../api/login", "/x/%2e%2e/api/login", "/x/%2E%2E/api/login", "/x/.%2e/api/login", "/x/..;/api/login",
            "/x/..;a=b/api/login", "/x/%2e%2e;/api/login", "/x/..%2fapi/login", "/x/..%5capi/login", "/api/%2e/login",
            "/x/%09../api/login", "/api/login/x/..", "/x/..\\api/login"})
    void pathSpelling_exhaustedLogin_neverServedAsTheLogin(String path) throws Exception {
        exhaustLogin();
        received.clear();
        Answer answer = send("POST", path);
        if (answer.status() == 400 || answer.status() == 404 || answer.status() == 429) {
            return;
        }
        assertThat(received).as("%s answered %d", path, answer.status())
                .allSatisfy(raw -> assertThat(normalised(raw)).as(raw).isNotEqualTo("/api/login"));
    }

    /**
     * The dot-segments themselves, whatever their spelling, and the other spellings a lenient backend reads as
     * another path (empty segments, whitespace or control characters at a segment's ends, an encoded {@code ;}),
     * are refused before any route is matched.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/x/../api/login", "/x/%2e%2e/api/login", "/x/.%2E/api/login", "/x/..;/api/login",
            "/api/./login", "/api/%2e/login", "/x/..%2fapi/login", "//api/login", "/api/login%09", "/api/login%3b",
            "/api/login/;a=b"})
    void ambiguousPath_refusedWith400(String path) throws Exception {
        received.clear();
        assertThat(send("GET", path).status()).as(path).isEqualTo(400);
        assertThat(received).isEmpty();
    }

    private static void exhaustLogin() throws Exception {
        for (int i = 0; i < 3; i++) {
            if (send("POST", "/api/login").status() == 429) {
                return;
            }
        }
        throw new AssertionError("POST /api/login was never refused");
    }

    private static void assertEveryPolicyEnforced(String path, String tight) throws Exception {
        List<Answer> answers = List.of(send("GET", path), send("GET", path), send("GET", path));
        // An unexpected status carries the whole answers, so a gateway error names its cause.
        assertThat(answers).as("the answers to three GET %s: %s", path, answers).extracting(Answer::status)
                .containsExactly(200, 200, 429);
        assertThat(answers.get(0).head()).containsPattern("RateLimit-Policy: .*\"wide\";q=100;w=600")
                .containsPattern("RateLimit-Policy: .*\"" + tight + "\";q=2;w=600");
        assertThat(answers.get(2).body()).contains("\"violated-policies\":[\"" + tight + "\"]");
    }

    /** The path as a lenient backend serves it: decoded, path parameters dropped, empty and dot-segments resolved. */
    private static String normalised(String raw) {
        String decoded = java.net.URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        List<String> segments = new ArrayList<>();
        for (String segment : decoded.split("[/\\\\]")) {
            int parameters = segment.indexOf(';');
            String s = (parameters >= 0 ? segment.substring(0, parameters) : segment).strip();
            if (s.equals("..")) {
                if (!segments.isEmpty()) {
                    segments.remove(segments.size() - 1);
                }
            } else if (!s.isEmpty() && !s.equals(".")) {
                segments.add(s);
            }
        }
        return "/" + String.join("/", segments);
    }

    static List<String> policies(String... nameAndLimit) {
        List<String> args = new ArrayList<>();
        for (String p : nameAndLimit) {
            String name = p.substring(0, p.indexOf('='));
            args.add("--sluice.policies." + name + ".algorithm=sliding-log");
            args.add("--sluice.policies." + name + ".permit-limit=" + p.substring(p.indexOf('=') + 1));
            args.add("--sluice.policies." + name + ".window=10m");
        }
        return args;
    }

    record Answer(int status, String head, String body) {}

    /** One request written byte for byte, so the path reaches the gateway exactly as spelled. */
    static Answer send(String method, String path) throws IOException {
        return send(port, method, path);
    }

    static Answer send(int port, String method, String path) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(60_000); // a first request warms a gateway up: seconds on a loaded machine
            OutputStream out = socket.getOutputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String head = end < 0 ? text : text.substring(0, end);
            String body = end < 0 ? "" : text.substring(end + 4);
            String[] statusLine = head.split(" ", 3);
            return new Answer(Integer.parseInt(statusLine[1]), head, body);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
