package dev.sluice.gateway.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A gateway and nothing else: its routes and policies come from the test's properties. */
@SpringBootApplication
public class GatewayApp {
}
