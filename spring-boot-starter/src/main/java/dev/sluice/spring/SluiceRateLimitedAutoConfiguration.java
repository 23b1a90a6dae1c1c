package dev.sluice.spring;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * {@link RateLimited} methods, in any application (web or not), and, in a web application, the answer to their
 * refusals.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnSluiceSwitch("sluice.enabled")
public class SluiceRateLimitedAutoConfiguration {

    /** Proxies beans with {@link RateLimited} methods. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedPostProcessor sluiceRateLimitedPostProcessor() {
        return new RateLimitedPostProcessor();
    }

    /** Answers refusals of {@link RateLimited} methods in MVC and WebFlux controllers. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @ConditionalOnClass(name = {"org.springframework.web.ErrorResponse",
            "org.springframework.web.bind.annotation.RestControllerAdvice"})
    static class Refusals {
        @Bean
        @ConditionalOnMissingBean
        RateLimitExceptionHandler sluiceRateLimitExceptionHandler() {
            return new RateLimitExceptionHandler();
        }
    }
}
