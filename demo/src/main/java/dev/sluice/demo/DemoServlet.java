package dev.sluice.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The application behind the filter: {@code /api/<policy>} answers a small JSON body naming the instance
 * that served it; {@code /} lists the endpoints. The optional {@code sleep} parameter (milliseconds, at
 * most 30,000) makes a request work that long, which holds a concurrency lease meanwhile.
 */
final class DemoServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** Longest {@code sleep} a request may ask for. */
    static final long MAX_SLEEP_MILLIS = 30_000;

    private final String instance;
    private final String member;

    DemoServlet(String instance, String member) {
        this.instance = instance;
        this.member = member;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
        Map<String, String> descriptions = DemoPolicies.descriptions();
        if (path.isEmpty() || path.equals("/")) {
            StringBuilder index = new StringBuilder("Sluice demo, instance " + instance + " (member " + member + ")\n");
            descriptions.forEach((name, text) -> index.append("  GET /api/").append(name).append("  ").append(text)
                    .append('\n'));
            write(resp, 200, "text/plain", index.toString());
            return;
        }
        String endpoint = path.startsWith("/api/") ? path.substring("/api/".length()) : "";
        if (!descriptions.containsKey(endpoint)) {
            write(resp, 404, "text/plain", "no such endpoint: " + path + "\n");
            return;
        }
        long sleep;
        try {
            sleep = parseSleep(req.getParameter("sleep"));
        } catch (IllegalArgumentException e) {
            write(resp, 400, "text/plain", e.getMessage() + "\n");
            return;
        }
        if (sleep > 0) {
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                write(resp, 503, "text/plain", "interrupted\n");
                return;
            }
        }
        write(resp, 200, "application/json", "{\"instance\":\"" + instance + "\",\"member\":\"" + member
                + "\",\"endpoint\":\"" + endpoint + "\",\"sleptMillis\":" + sleep + "}\n");
    }

    private static long parseSleep(String value) {
        if (value == null || value.isEmpty()) {
            return 0;
        }
        try {
            long millis = Long.parseLong(value);
            if (millis >= 0 && millis <= MAX_SLEEP_MILLIS) {
                return millis;
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException("sleep must be milliseconds between 0 and " + MAX_SLEEP_MILLIS
                + ", was '" + value + "'");
    }

    private static void write(HttpServletResponse resp, int status, String type, String body) throws IOException {
        resp.setStatus(status);
        resp.setContentType(type);
        resp.setCharacterEncoding(StandardCharsets.UTF_8.name());
        resp.getWriter().write(body);
    }
}
