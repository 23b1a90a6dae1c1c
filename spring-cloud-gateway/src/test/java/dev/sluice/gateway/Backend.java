package dev.sluice.gateway;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/** A real HTTP backend for a gateway's routes, on a free loopback port. */
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

    static Backend answering(HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", handler);
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
