package dev.sluice.spring;

import java.util.Locale;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** The condition of {@link ConditionalOnSluiceSwitch}. */
final class SluiceSwitchCondition extends SpringBootCondition {
    /** What the message lists as accepted. */
    static final String ACCEPTED = "true or false (also yes/no, on/off, 1/0, in any case)";

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
     * {@code value} as Spring's conversion reads a boolean.
     *
     * @throws InvalidSluiceConfigurationException naming the property, the value and the accepted values
     */
    static boolean parse(String property, String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new InvalidSluiceConfigurationException("invalid property " + property + "='" + value
                    + "'; expected " + ACCEPTED, null);
        };
    }
}
