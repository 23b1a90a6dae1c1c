package dev.sluice.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/**
 * Matches when every named switch is on: unset, or a value Spring's own conversion reads as true ({@code true},
 * {@code yes}, {@code on}, {@code 1}, any case). A value it reads as false turns the configuration off; any other
 * value fails start-up naming the property, the value and the accepted values, where Spring Boot's
 * {@code @ConditionalOnProperty(havingValue = "true")} would silently read {@code yes} and {@code maybe} as off.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Documented
@Conditional(SluiceSwitchCondition.class)
public @interface ConditionalOnSluiceSwitch {
    /** The full names of the switches, such as {@code sluice.enabled}; each is on when unset. */
    String[] value();
}
