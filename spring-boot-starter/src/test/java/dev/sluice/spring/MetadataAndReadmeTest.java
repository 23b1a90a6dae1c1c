package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** IDEs complete {@code sluice.*}, and the README shows the application.yml the tests run. */
class MetadataAndReadmeTest {

    @Test
    void configurationMetadata_describesTheProperties() throws Exception {
        String metadata;
        try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(metadata).contains("\"name\": \"sluice.policies\"", "\"name\": \"sluice.routes\"",
                "\"name\": \"sluice.client.trusted-proxies\"", "\"name\": \"sluice.filter.order\"",
                "\"name\": \"sluice.filter.url-patterns\"", "\"name\": \"sluice.prefilter.mode\"",
                "\"name\": \"sluice.headers.partition-key\"", "\"name\": \"sluice.hazelcast.map-name\"");
        assertThat(metadata).contains("Spring Security"); // from the Javadoc of the filter's order
        assertThat(metadata).contains("\"hints\"", "\"value\": \"refusal-cache\"", "\"value\": \"principal\"");
    }

    @Test
    void readme_springBootSection_showsTheApplicationYmlTheTestsLoad() throws Exception {
        String yml = Files.readString(Path.of("src/test/resources/application.yml"));
        String readme = Files.readString(Path.of("../README.md"));
        int section = readme.indexOf("\n## Spring Boot\n");
        assertThat(section).isPositive();
        assertThat(readme.substring(section)).contains("```yaml\n" + yml + "```\n");
    }
}
