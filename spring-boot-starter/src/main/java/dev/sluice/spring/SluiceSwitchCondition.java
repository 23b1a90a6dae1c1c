package dev.sluice.spring;

import dev.sluice.http.SettingText;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** The condition of {@link ConditionalOnSluiceSwitch}. */
final class SluiceSwitchCondition extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnSluiceSwitch.class.getName());
        for (String name : (String[]) attributes.get("value")) {
            String value = context.getEnvironment().getProperty(name);
            if (value != null && !parse(name, value)) {
                return ConditionOutcome.noMatch(name + "=" + value);
            }
        }
        return ConditionOutcome.match("switches on");
    }

    /**
     * {@code value} as Spring's conversion reads a boolean, by the HTTP core's rule for every switch.
     *
     * @throws InvalidSluiceConfigurationException naming the property, the value and the accepted values
     */
    static boolean parse(String property, String value) {
        try {
            return SettingText.bool(property, value);
        } catch (IllegalArgumentException e) {
            throw new InvalidSluiceConfigurationException(e.getMessage(), e);
        }
    }
}
