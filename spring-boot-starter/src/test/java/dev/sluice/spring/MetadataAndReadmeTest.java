package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.sluice.http.SluiceSettings;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
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
     * Every setting of the HTTP core's model is in the metadata IDEs read, named as Boot binds it, with its type
     * (the processor's, from the records), its default (the records') and a description; every {@code sluice.*}
     * item has a type, so a name in the hand-written descriptions that no setting has fails here.
     */
    @Test
    void configurationMetadata_listsEverySettingWithItsTypeAndDefault() throws Exception {
        List<Map<String, Object>> items = JsonPath.read(metadata(), "$.properties");
        Map<String, Map<String, Object>> byName = items.stream()
                .collect(Collectors.toMap(i -> (String) i.get("name"), i -> i, (a, b) -> a, LinkedHashMap::new));
        Map<String, Object[]> settings = new LinkedHashMap<>();
        leaves(SluiceSettings.class, "sluice.", SluiceSettings.defaults(), settings);
        assertThat(settings).containsKeys("sluice.policies", "sluice.routes", "sluice.client.trusted-proxies",
                "sluice.capacity.policy", "sluice.headers.enabled", "sluice.problem.type", "sluice.strict-matching");
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

    /** The starter binds each group of the model under the model's own name and type. */
    @Test
    void properties_holdEveryGroupOfTheModel() throws Exception {
        for (RecordComponent c : SluiceSettings.class.getRecordComponents()) {
            String name = c.getName().substring(0, 1).toUpperCase(Locale.ROOT) + c.getName().substring(1);
            String getter = (c.getType() == boolean.class ? "is" : "get") + name;
            assertThat(SluiceProperties.class.getMethod(getter).getGenericReturnType()).as(getter)
                    .isEqualTo(c.getGenericType());
            assertThat(SluiceProperties.class.getMethod("set" + name, c.getType())).as("set" + name).isNotNull();
        }
    }

    /** Each setting below {@code base}: its name, the type the processor writes, its default as the metadata writes it. */
    private static void leaves(Class<?> type, String base, Object defaults, Map<String, Object[]> into)
            throws Exception {
        for (RecordComponent c : type.getRecordComponents()) {
            String name = base + c.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
            Object value = defaults == null ? null : c.getAccessor().invoke(defaults);
            if (c.getType().isRecord()) {
                leaves(c.getType(), name + ".", value, into);
            } else {
                Object shown = value instanceof URI ? value.toString()
                        : value instanceof Enum<?> e ? e.name().toLowerCase(Locale.ROOT).replace('_', '-')
                        : value instanceof Map<?, ?> ? null : value;
                into.put(name, new Object[] {typeName(c.getGenericType()), shown});
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
