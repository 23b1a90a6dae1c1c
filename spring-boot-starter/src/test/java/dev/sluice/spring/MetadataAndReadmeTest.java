package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.sluice.http.SluiceSettings;
import java.beans.PropertyDescriptor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;

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

    /**
     * Every setting of the HTTP core's model is in the metadata IDEs read, named as Boot binds it, with the type, the
     * default (a fresh model's) and the description the processor writes from the model's source; every
     * {@code sluice.*} item has a type, so a hand-written item that names no setting fails here.
     */
    @Test
    void configurationMetadata_listsEverySettingWithItsTypeAndDefault() throws Exception {
        List<Map<String, Object>> items = JsonPath.read(metadata(), "$.properties");
        Map<String, Map<String, Object>> byName = items.stream()
                .collect(Collectors.toMap(i -> (String) i.get("name"), i -> i, (a, b) -> a, LinkedHashMap::new));
        Map<String, Object[]> settings = new LinkedHashMap<>();
        leaves(new SluiceSettings(), "sluice.", settings);
        assertThat(settings).containsKeys("sluice.policies", "sluice.routes", "sluice.client.trusted-proxies",
                "sluice.capacity.policy", "sluice.headers.enabled", "sluice.problem.type", "sluice.strict-matching",
                "sluice.client.ipv6-prefix", "sluice.reset-enabled");
        for (Map.Entry<String, Object[]> s : settings.entrySet()) {
            Map<String, Object> item = byName.get(s.getKey());
            assertThat(item).as(s.getKey()).isNotNull();
            assertThat(item.get("type")).as("type of " + s.getKey()).isEqualTo(s.getValue()[0]);
            assertThat((String) item.get("description")).as("description of " + s.getKey()).isNotBlank();
            if (s.getValue()[1] != null) {
                assertThat(item.get("defaultValue")).as("default of " + s.getKey()).isEqualTo(s.getValue()[1]);
            }
        }
        for (Map<String, Object> item : items) {
            if (((String) item.get("name")).startsWith("sluice.")) {
                assertThat(item.get("type")).as("type of " + item.get("name")).isNotNull();
            }
        }
    }

    /** Each setting of {@code group}: its name, the type the processor writes, its default as the metadata writes it. */
    private static void leaves(Object group, String base, Map<String, Object[]> into) throws Exception {
        for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(group.getClass())) {
            if (d.getWriteMethod() == null) {
                continue;
            }
            String name = base + d.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
            Object value = d.getReadMethod().invoke(group);
            Class<?> type = d.getPropertyType();
            if (type.getDeclaringClass() == SluiceSettings.class && !type.isEnum()) {
                leaves(value, name + ".", into);
            } else {
                Object shown = value instanceof URI ? value.toString()
                        : value instanceof Enum<?> e ? e.name().toLowerCase(Locale.ROOT).replace('_', '-')
                        : value instanceof Map<?, ?> ? null : value;
                into.put(name, new Object[] {typeName(d.getReadMethod().getGenericReturnType()), shown});
            }
        }
    }

    private static String typeName(Type type) {
        if (type instanceof ParameterizedType p) {
            return typeName(p.getRawType()) + "<" + Arrays.stream(p.getActualTypeArguments())
                    .map(MetadataAndReadmeTest::typeName).collect(Collectors.joining(",")) + ">";
        }
        Class<?> c = (Class<?>) type;
        return c == boolean.class ? "java.lang.Boolean" : c == int.class ? "java.lang.Integer"
                : c == long.class ? "java.lang.Long" : c.getName();
    }

    private String metadata() throws Exception {
        try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readme_springBootSection_showsTheApplicationYmlTheTestsLoad() throws Exception {
        String yml = Files.readString(Path.of("src/test/resources/application.yml"));
        String page = Files.readString(Path.of("../docs/spring-boot.md"));
        assertThat(page).contains("```yaml\n" + yml + "```\n");
    }

    /** The secured login's YAML on the Spring Boot page binds, and its policies land on its routes as the text says. */
    @Test
    void readme_securedLoginYaml_binds() throws Exception {
        String readme = Files.readString(Path.of("../docs/spring-boot.md"));
        int section = readme.indexOf("\n## Behind Spring Security\n");
        assertThat(section).isPositive();
        int start = readme.indexOf("```yaml\n", section) + "```yaml\n".length();
        String yaml = readme.substring(start, readme.indexOf("```\n", start));
        List<org.springframework.core.env.PropertySource<?>> sources = new org.springframework.boot.env
                .YamlPropertySourceLoader().load("readme", new org.springframework.core.io.ByteArrayResource(
                        yaml.getBytes(StandardCharsets.UTF_8)));
        new org.springframework.boot.test.context.runner.ApplicationContextRunner()
                .withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS))
                .withInitializer(c -> sources.forEach(c.getEnvironment().getPropertySources()::addFirst))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ProtectionReport report = context.getBean(ProtectionReport.class);
                    assertThat(report.warnings()).isEmpty();
                    assertThat(report.policy("login-limit")).containsEntry("identity", List.of("address"));
                    assertThat(report.policy("per-user")).containsEntry("identity", List.of("principal"));
                    assertThat(report.routes()).extracting(r -> r.get("pattern")).containsExactly("/login", "/api/*");
                });
    }
}
