package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The WebFlux application runs, limited, with no servlet API at all: its own class loader holds the test
 * class path without jakarta.servlet, Tomcat and Spring MVC, so a servlet type anywhere on the reactive
 * path (starter or servlet-filter) would fail to load.
 */
class NoServletApiTest {

    @Test
    void webFluxApplication_withoutServletApiOnTheClassPath_limitsAndAnswersAsUsual() throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            String name = new File(entry).getName();
            if (!name.startsWith("jakarta.servlet-api") && !name.startsWith("tomcat-embed")
                    && !name.startsWith("spring-webmvc") && !name.startsWith("spring-boot-webmvc")
                    && !name.startsWith("spring-boot-tomcat") && !name.startsWith("spring-boot-servlet")
                    && !name.startsWith("spring-boot-starter-webmvc") && !name.startsWith("spring-boot-starter-tomcat")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader isolated = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> Class.forName("jakarta.servlet.Filter", false, isolated))
                    .isInstanceOf(ClassNotFoundException.class);
            Thread.currentThread().setContextClassLoader(isolated);
            Class<?> app = Class.forName("dev.sluice.spring.reactiveapp.ReactiveApp", true, isolated);
            Class<?> spring = Class.forName("org.springframework.boot.SpringApplication", true, isolated);
            Method run = spring.getMethod("run", Class.class, String[].class);
            AutoCloseable context = (AutoCloseable) run.invoke(null, app, new String[] {"--server.port=0",
                "--spring.main.web-application-type=reactive", "--spring.autoconfigure.exclude="
                        + "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration"});
            try {
                Object environment = context.getClass().getMethod("getEnvironment").invoke(context);
                int port = Integer.parseInt((String) environment.getClass().getMethod("getProperty", String.class)
                        .invoke(environment, "local.server.port"));
                HttpResponse<String> granted = Http.get(port, "/api/hello");
                assertThat(granted.statusCode()).isEqualTo(200);
                assertThat(granted.headers().firstValue("RateLimit-Policy")).hasValue(
                        "\"per-client\";q=20;w=60, \"everyone\";q=1000;w=10");
                List<HttpResponse<String>> burst = Http.burst(25, "/api/hello", port);
                assertThat(Http.count(burst, 200)).isEqualTo(19);
                assertThat(Http.count(burst, 429)).isEqualTo(6);
            } finally {
                context.close();
            }
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }
}
