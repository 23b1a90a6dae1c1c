package dev.sluice.spring;

import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * Records, for the rate-limit filter, the peer address and the forwarding headers as Tomcat's connector
 * received them.
 *
 * <p>Tomcat's {@code RemoteIpValve}, which Spring Boot installs for {@code server.forward-headers-strategy=native}
 * and by itself on Kubernetes, replaces {@code getRemoteAddr()} with the left-most {@code X-Forwarded-For}
 * entry that its own internal-proxy rule (every private and loopback range) does not stop at, and trims the
 * header of what it consumed, before any filter runs: a pod in 10/8 calling the service directly chooses its
 * own address. The peer address itself ({@code Request.getPeerAddr()}) is the socket's and no valve changes it,
 * but the header lines must be read before {@code RemoteIpValve} trims them, so this valve is added as the
 * first engine valve (its customizer runs before Boot's). The filter then applies only Sluice's own
 * {@code sluice.client.trusted-proxies} to what was received.
 */
final class SluicePeerValve extends ValveBase {

    SluicePeerValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        request.setAttribute(RateLimitFilter.PEER_ADDRESS_ATTRIBUTE, request.getPeerAddr());
        request.setAttribute(RateLimitFilter.FORWARDING_HEADERS_ATTRIBUTE, Map.of(
                "x-forwarded-for", lines(request, "X-Forwarded-For"), "forwarded", lines(request, "Forwarded")));
        getNext().invoke(request, response);
    }

    private static List<String> lines(Request request, String header) {
        return List.copyOf(Collections.list(request.getHeaders(header)));
    }
}
