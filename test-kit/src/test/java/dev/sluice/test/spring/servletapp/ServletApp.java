package dev.sluice.test.spring.servletapp;

import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import dev.sluice.spring.RateLimited;
import javax.cache.CacheManager;
import javax.cache.Caching;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring MVC application whose configured backend is JCache (its {@link CacheManager} bean): {@code /api/*}
 * limited by the servlet filter (application.yml), {@code /reports/{id}} by {@link RateLimited}.
 */
@SpringBootApplication
public class ServletApp {

    /** The backend the starter would choose: a JCache provider's cache manager. */
    @Bean(destroyMethod = "close")
    public CacheManager jcacheManager() {
        return Caching.getCachingProvider(CaffeineCachingProvider.class.getName()).getCacheManager();
    }

    @RestController
    static class Api {
        private final Reports reports;

        Api(Reports reports) {
            this.reports = reports;
        }

        @GetMapping("/api/hello")
        String hello() {
            return "hello";
        }

        @GetMapping("/reports/{id}")
        String report(@PathVariable String id) {
            return reports.build(id);
        }
    }

    @Service
    public static class Reports {
        @RateLimited(policy = "reports")
        public String build(String id) {
            return "report " + id;
        }
    }
}
