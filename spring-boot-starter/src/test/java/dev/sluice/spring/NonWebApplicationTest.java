package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A worker (no web stack at all: not even spring-web on its class path) compiles against the starter, catches
 * its refusal, and runs with a {@code @RateLimited} service and the store's bean injected.
 */
class NonWebApplicationTest {
    static final String WORKER = """
            package worker;

            import dev.sluice.limiter.LimitSpec;
            import dev.sluice.limiter.RateLimiter;
            import dev.sluice.limiter.RateLimiters;
            import dev.sluice.spring.RateLimitExceededException;
            import dev.sluice.spring.RateLimited;
            import java.time.Duration;
            import java.util.ArrayList;
            import java.util.List;
            import org.springframework.boot.SpringApplication;
            import org.springframework.boot.autoconfigure.SpringBootApplication;
            import org.springframework.context.ConfigurableApplicationContext;
            import org.springframework.context.annotation.Bean;
            import org.springframework.stereotype.Service;

            @SpringBootApplication
            public class WorkerApp {
                @Bean
                RateLimiter nightly(RateLimiters limiters) {
                    return limiters.limiter("nightly", LimitSpec.fixedWindow(1, Duration.ofHours(1)));
                }

                @Service
                public static class Jobs {
                    @RateLimited(policy = "jobs", key = "KEY")
                    public String run(String tenant) {
                        return "ran " + tenant;
                    }
                }

                public static List<String> exercise(String... args) {
                    List<String> out = new ArrayList<>();
                    try (ConfigurableApplicationContext context = SpringApplication.run(WorkerApp.class, args)) {
                        Jobs jobs = context.getBean(Jobs.class);
                        for (int i = 0; i < 3; i++) {
                            try {
                                out.add(jobs.run("acme"));
                            } catch (RateLimitExceededException e) {
                                out.add("refused by " + e.policy() + ", retry after " + e.lease().retryAfter().isPresent());
                            }
                        }
                        out.add(jobs.run("globex"));
                        try {
                            out.add(jobs.run(null));
                        } catch (RateLimitExceededException e) {
                            out.add("refused without a key: " + e.getMessage().contains("gave null"));
                        }
                        RateLimiter nightly = context.getBean("nightly", RateLimiter.class);
                        out.add("nightly " + nightly.tryAcquire().isAcquired() + " " + nightly.tryAcquire().isAcquired());
                        out.add(context.getClass().getSimpleName());
                    }
                    return out;
                }
            }
            """;

    static final String[] ARGS = {"--spring.autoconfigure.exclude="
            + "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
        "--sluice.policies.jobs.algorithm=fixed-window", "--sluice.policies.jobs.permit-limit=2",
        "--sluice.policies.jobs.window=PT1H", "--spring.main.banner-mode=off"};

    @SuppressWarnings("unchecked")
    static List<String> run(Path classes, List<Path> classPath, String... args) throws Exception {
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader isolated = Isolated.loader(classPath, classes)) {
            assertThatThrownBy(() -> Class.forName("org.springframework.web.ErrorResponse", false, isolated))
                    .isInstanceOf(ClassNotFoundException.class);
            Thread.currentThread().setContextClassLoader(isolated);
            Class<?> app = Class.forName("worker.WorkerApp", true, isolated);
            try {
                return (List<String>) app.getMethod("exercise", String[].class).invoke(null, (Object) args);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    @Test
    void workerWithoutSpringWeb_compilesCatchesTheRefusalAndIsLimited() throws Exception {
        List<Path> classPath = Isolated.classPath(Isolated.WEB);
        Path classes = Isolated.compile(Map.of("worker.WorkerApp", WORKER.replace("KEY", "#tenant")), classPath,
                "-parameters");
        assertThat(run(classes, classPath, ARGS)).containsExactly("ran acme", "ran acme",
                "refused by jobs, retry after true", "ran globex", "refused without a key: true", "nightly true false", "AnnotationConfigApplicationContext");
    }
}
