package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code @RateLimited} keys on a class compiled without {@code -parameters} (as a build without Boot's parent
 * POM compiles): positions always resolve, a name fails start-up saying how to fix it, and so does a key that
 * does not parse.
 */
class RateLimitedKeysTest {
    private static List<Path> classPath;

    @BeforeAll
    static void classPath() {
        classPath = Isolated.classPath(Isolated.WEB);
    }

    private static Path compiled(String key, String... options) throws Exception {
        return Isolated.compile(Map.of("worker.WorkerApp", NonWebApplicationTest.WORKER.replace("KEY", key)),
                classPath, options);
    }

    @Test
    void positionalKeys_resolveWithoutParameterNames() throws Exception {
        for (String key : List.of("#p0", "#a0")) {
            assertThat(NonWebApplicationTest.run(compiled(key), classPath, NonWebApplicationTest.ARGS))
                    .as(key).startsWith("ran acme", "ran acme", "refused by jobs, retry after true", "ran globex",
                            "refused without a key: true");
        }
    }

    @Test
    void namedKey_withoutParameterNames_failsStartUpSayingHowToFixIt() throws Exception {
        Throwable failure = rootCause(catchThrowable(() ->
                NonWebApplicationTest.run(compiled("#tenant"), classPath, NonWebApplicationTest.ARGS)));
        assertThat(failure.getClass().getName()).isEqualTo(InvalidSluiceConfigurationException.class.getName());
        assertThat(failure.getMessage()).contains("key=\"#tenant\"", "reads #tenant", "compiled without -parameters",
                "#p0", "<parameters>true</parameters>");
    }

    @Test
    void keyThatDoesNotParse_failsStartUpSayingHowToWriteIt() throws Exception {
        Throwable failure = rootCause(catchThrowable(() ->
                NonWebApplicationTest.run(compiled("#p0 +"), classPath, NonWebApplicationTest.ARGS)));
        assertThat(failure.getClass().getName()).isEqualTo(InvalidSluiceConfigurationException.class.getName());
        assertThat(failure.getMessage()).contains("key=\"#p0 +\"", "not a SpEL expression", "#p0", "-parameters");
    }

    private static Throwable rootCause(Throwable t) {
        Throwable cause = t;
        while (cause.getCause() != null && !cause.getClass().getName().equals(
                InvalidSluiceConfigurationException.class.getName())) {
            cause = cause.getCause();
        }
        return cause;
    }
}
