package dev.sluice.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.servlet.security.ConstraintMapping;
import org.eclipse.jetty.ee10.servlet.security.ConstraintSecurityHandler;
import org.eclipse.jetty.security.Constraint;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.security.authentication.BasicAuthenticator;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * An embedded Jetty 12 (ee10) server on an ephemeral port of 127.0.0.1 with one filter in front of
 * {@link AppServlet}, and an HTTP client to call it.
 */
final class JettyHarness implements AutoCloseable {
    /** Asynchronous requests started by {@code /async/*} paths, for the test to complete. */
    final BlockingQueue<AsyncContext> started = new LinkedBlockingQueue<>();
    /** Counted down once per asynchronous request after every earlier listener (the filter's) ran. */
    final BlockingQueue<CountDownLatch> ended = new LinkedBlockingQueue<>();

    private final Server server;
    private final ServerConnector connector;
    /** One client for every test: {@code HttpClient} cannot be closed on Java 17. */
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * How the test server differs from the plain one.
     *
     * @param requestHeaderBytes the largest request head Jetty accepts (its default is 8 KiB)
     * @param before a filter in front of the rate-limit filter, or null
     * @param basicUsers user name to password: every path then needs HTTP Basic authentication as one of
     *     them (role {@code user}); empty for no authentication
     */
    record Setup(int requestHeaderBytes, Filter before, Map<String, String> basicUsers) {
        static final Setup DEFAULT = new Setup(8 * 1024, null, Map.of());

        Setup withRequestHeaderBytes(int bytes) {
            return new Setup(bytes, before, basicUsers);
        }

        Setup withFilterBefore(Filter filter) {
            return new Setup(requestHeaderBytes, filter, basicUsers);
        }

        Setup withBasicAuth(Map<String, String> users) {
            return new Setup(requestHeaderBytes, before, users);
        }
    }

    private JettyHarness(FilterHolder filter, Map<String, Object> contextAttributes) throws Exception {
        this(filter, contextAttributes, Setup.DEFAULT);
    }

    private JettyHarness(FilterHolder filter, Map<String, Object> contextAttributes, Setup setup) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(16, 2);
        threads.setName("jetty-test");
        server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(setup.requestHeaderBytes());
        connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler(
                setup.basicUsers().isEmpty() ? ServletContextHandler.NO_SECURITY : ServletContextHandler.SECURITY);
        context.setContextPath("/");
        contextAttributes.forEach(context::setAttribute);
        if (!setup.basicUsers().isEmpty()) {
            UserStore users = new UserStore();
            setup.basicUsers().forEach((name, password) ->
                    users.addUser(name, Credential.getCredential(password), new String[] {"user"}));
            HashLoginService login = new HashLoginService("test");
            login.setUserStore(users);
            ConstraintSecurityHandler security = (ConstraintSecurityHandler) context.getSecurityHandler();
            security.setLoginService(login);
            security.setAuthenticator(new BasicAuthenticator());
            ConstraintMapping everything = new ConstraintMapping();
            everything.setPathSpec("/*");
            everything.setConstraint(Constraint.from("user"));
            security.addConstraintMapping(everything);
        }
        if (setup.before() != null) {
            context.addFilter(new FilterHolder(setup.before()), "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        filter.setAsyncSupported(true);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
        ServletHolder servlet = new ServletHolder(new AppServlet(this));
        servlet.setAsyncSupported(true);
        context.addServlet(servlet, "/*");
        server.setHandler(context);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
    }

    /** A server with this filter instance. */
    static JettyHarness start(Filter filter) throws Exception {
        return new JettyHarness(new FilterHolder(filter), Map.of());
    }

    /** A server with this filter instance, set up as {@code setup} says. */
    static JettyHarness start(Filter filter, Setup setup) throws Exception {
        return new JettyHarness(new FilterHolder(filter), Map.of(), setup);
    }

    /** A server whose filter is created by the container and configured by init parameters and attributes. */
    static JettyHarness start(Map<String, String> initParameters, Map<String, Object> contextAttributes)
            throws Exception {
        FilterHolder holder = new FilterHolder(RateLimitFilter.class);
        holder.setInitParameters(initParameters);
        return new JettyHarness(holder, contextAttributes);
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + connector.getLocalPort() + path))
                .timeout(Duration.ofSeconds(10));
    }

    HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = request(path).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Sends {@code head} (a request line and headers, CRLF-separated, without the blank line) as raw bytes
     * on a new connection and answers the status code of the response, for requests the JDK client will
     * not send (raw non-ASCII, odd methods). The connection is closed after one response.
     */
    int raw(byte[] head) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", connector.getLocalPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(head);
            out.write("\r\nConnection: close\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
                line.write(b);
            }
            String status = line.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
            if (!status.startsWith("HTTP/1.1 ")) {
                throw new AssertionError("not an HTTP/1.1 status line: '" + status + "'");
            }
            return Integer.parseInt(status.substring(9, 12));
        }
    }

    /** As {@link #raw(byte[])}, the text as ISO-8859-1 (each char one byte). */
    int raw(String head) throws IOException {
        return raw(head.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    HttpResponse<String> send(HttpRequest request) throws Exception {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return CLIENT.sendAsync(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The next asynchronous request the application started; fails after 10 s. */
    AsyncContext nextStarted() throws InterruptedException {
        AsyncContext c = started.poll(10, TimeUnit.SECONDS);
        if (c == null) {
            throw new AssertionError("no asynchronous request started within 10 s");
        }
        return c;
    }

    /** Waits until an asynchronous request has ended and every listener registered before the app's has run. */
    void awaitEnded() throws InterruptedException {
        CountDownLatch latch = ended.poll(10, TimeUnit.SECONDS);
        if (latch == null || !latch.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the asynchronous request did not end within 10 s");
        }
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("could not stop the test server", e);
        }
    }

    /**
     * The application: {@code /boom/*} throws, {@code /async/*} goes asynchronous (the test completes it),
     * {@code /async-timeout/*} goes asynchronous and times out after 100 ms; {@code /signin} answers 200 to the
     * password {@code right} and 401 to any other, with {@code X-Sluice-Cost} set to its {@code cost}; everything else
     * answers 200 "ok".
     */
    static final class AppServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient JettyHarness harness;

        AppServlet(JettyHarness harness) {
            this.harness = harness;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            String path = req.getPathInfo() == null ? req.getServletPath() : req.getServletPath() + req.getPathInfo();
            if (req.getDispatcherType() == DispatcherType.ASYNC) {
                resp.setStatus(200);
                resp.getWriter().write("async done");
                return;
            }
            if (path.startsWith("/signin")) { // a login: the right password is "right"; a cost in the header if asked
                if (req.getParameter("cost") != null) {
                    resp.setHeader("X-Sluice-Cost", req.getParameter("cost"));
                }
                resp.setStatus("right".equals(req.getParameter("password")) ? 200 : 401);
                resp.getWriter().write("login");
                return;
            }
            if (path.startsWith("/boom")) {
                throw new ServletException("boom");
            }
            if (path.startsWith("/async")) {
                AsyncContext context = req.startAsync();
                context.setTimeout(path.startsWith("/async-timeout") ? 100 : 30_000);
                CountDownLatch latch = new CountDownLatch(1);
                context.addListener(new AsyncListener() {
                    @Override public void onComplete(AsyncEvent event) { latch.countDown(); }
                    @Override public void onTimeout(AsyncEvent event) {}
                    @Override public void onError(AsyncEvent event) {}
                    @Override public void onStartAsync(AsyncEvent event) {}
                });
                harness.ended.add(latch);
                harness.started.add(context);
                return;
            }
            resp.setStatus(200);
            resp.setContentType("text/plain");
            resp.getWriter().write("ok");
        }
    }
}
