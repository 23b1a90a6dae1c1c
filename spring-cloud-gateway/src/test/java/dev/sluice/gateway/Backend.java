package dev.sluice.gateway;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A real HTTP backend for a gateway's routes, on a free loopback port. It closes each connection once it has
 * answered: the JDK server closes a connection idle for 30 s on a timer of its own, and a test class that a
 * loaded machine stretches past that could have the gateway send a request on a pooled connection in the instant
 * the backend closes it, which the gateway answers 500. A connection per request leaves nothing to race.
 */
final class Backend implements AutoCloseable {
    private static final String ROUTES = "--spring.cloud.gateway.server.webflux.routes";

    private final HttpServer server;

    private Backend(HttpServer server) {
        this.server = server;
    }

    /** A backend that answers every request 200 with no body. */
    static Backend ok() throws IOException {
        return answering(exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
    }

    /** A backend that answers every request 200 with {@code body(path)} as its body. */
    static Backend echoing(Function<String, String> body) throws IOException {
        return answering(exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] bytes = body.apply(exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
    }

    static Backend answering(HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getResponseHeaders().set("Connection", "close");
            handler.handle(exchange);
        });
        server.start();
        return new Backend(server);
    }

    String uri() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /**
     * The arguments of route {@code index} to this backend on {@code path}; each filter is what follows
     * {@code filters}, as in {@code "[0]=Sluice=name"} or {@code "[0].args.policies=name"}.
     */
    List<String> route(int index, String id, String path, String... filters) {
        String route = ROUTES + "[" + index + "].";
        List<String> args = new ArrayList<>(List.of(route + "id=" + id, route + "uri=" + uri(),
                route + "predicates[0]=Path=" + path));
        for (String filter : filters) {
            args.add(route + "filters" + filter);
        }
        return args;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
