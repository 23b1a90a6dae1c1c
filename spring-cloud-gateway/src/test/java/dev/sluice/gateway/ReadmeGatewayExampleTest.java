package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.app.GatewayApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The gateway page's YAML (docs/gateway.md) is this test's configuration and does what the page says it does; the Spring Cloud
 * BOM it tells users to import is the release the build pins.
 */
final class ReadmeGatewayExampleTest {

    @Test
    void readmeGatewayYaml_startsAndLimitsLoginsAndTheApi() throws Exception {
        String yml = Files.readString(Path.of("src/test/resources/readme-gateway.yml"));
        String readme = Files.readString(Path.of("../docs/gateway.md"));
        assertThat(readme).contains("```yaml\n" + yml + "```\n");
        // The BOM the page tells users to import is the release this module is built and tested with.
        Matcher pinned = Pattern.compile("<spring-cloud.version>([^<]+)</").matcher(Files.readString(Path.of("../pom.xml")));
        assertThat(pinned.find()).isTrue();
        assertThat(readme).contains("<artifactId>spring-cloud-dependencies</artifactId>\n      <version>"
                + pinned.group(1) + "</version>", "tested with Spring Cloud " + pinned.group(1));

        int port = GatewayFormsTest.freePort();
        try (Backend backend = Backend.ok(); ConfigurableApplicationContext gateway = SpringApplication.run(GatewayApp.class,
                "--spring.config.location=classpath:readme-gateway.yml", "--server.port=" + port,
                "--spring.main.web-application-type=reactive",
                "--backend.uri=" + backend.uri())) {
            List<Integer> logins = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                logins.add(GatewayFormsTest.send(port, "POST", "/login").status());
            }
            assertThat(logins).containsExactly(200, 200, 200, 200, 200, 429);
            // per-client counted the five logins that went through (the refused one was given back): 15 are left
            List<Integer> api = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                api.add(GatewayFormsTest.send(port, "GET", "/api/orders").status());
            }
            assertThat(api.subList(0, 15)).containsOnly(200);
            assertThat(api.get(15)).isEqualTo(429);
        }
    }
}
