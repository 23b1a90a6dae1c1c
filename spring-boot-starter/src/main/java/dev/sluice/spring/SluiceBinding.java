package dev.sluice.spring;

import dev.sluice.http.SluiceSettings;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Holds each {@code sluice.*} value Boot binds to the HTTP core's rules for the text as written: Boot converts
 * more than the properties reader accepts ({@code yes} for true, a bare number for milliseconds) and reports what
 * it cannot convert in its own words, so each value is checked by the reader's own conversion, and refused with the
 * reader's message, naming the property, the value and what is allowed. Every switch reads as Spring's own
 * conversion reads a boolean, and anything else is refused ({@link SluiceSwitchCondition#parse}).
 */
final class SluiceBinding extends AbstractBindHandler {
    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("sluice");

    private SluiceBinding(BindHandler parent) {
        super(parent);
    }

    /** A handler for binding {@code sluice.*} directly. */
    static BindHandler handler() {
        return new SluiceBinding(BindHandler.DEFAULT);
    }

    @Override
    public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context, Object result) {
        check(name, target, context);
        return super.onSuccess(name, target, context, result);
    }

    @Override
    public Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context, Exception error)
            throws Exception {
        if (!(error instanceof BindException) && !(error instanceof InvalidSluiceConfigurationException)) {
            check(name, target, context);
        }
        return super.onFailure(name, target, context, error);
    }

    /** An unknown {@code sluice.*} property, named with the nearest valid one instead of Boot's generic message. */
    @Override
    public void onFinish(ConfigurationPropertyName name, Bindable<?> target, BindContext context, Object result)
            throws Exception {
        try {
            super.onFinish(name, target, context, result);
        } catch (UnboundConfigurationPropertiesException e) {
            if (!ROOT.equals(name) && !ROOT.isAncestorOf(name)) {
                throw e;
            }
            java.util.List<String> messages = new java.util.ArrayList<>();
            for (ConfigurationProperty p : e.getUnboundProperties()) {
                messages.add(UnknownProperties.message(p.getName().toString()));
            }
            throw new InvalidSluiceConfigurationException(String.join("; ", messages), e);
        }
    }

    private static void check(ConfigurationPropertyName name, Bindable<?> target, BindContext context) {
        ConfigurationProperty property = context.getConfigurationProperty();
        if (property == null || !property.getName().equals(name) || !ROOT.isAncestorOf(name)
                || property.getValue() == null) {
            return;
        }
        String text = String.valueOf(property.getValue());
        if (text.contains("${")) {
            return; // Boot resolves it; the HTTP core's rules still check the value it gives
        }
        try {
            SluiceSettings.checkWritten(name.toString(), text);
        } catch (IllegalArgumentException e) {
            throw new InvalidSluiceConfigurationException(e.getMessage(), e);
        }
        Class<?> type = target.getType().resolve();
        if (type == boolean.class || type == Boolean.class) {
            SluiceSwitchCondition.parse(name.toString(), text); // the starter's own switches, as the HTTP core's
        }
    }

    /** Applies the check to Boot's binding of {@link SluiceProperties}. */
    @Configuration(proxyBeanMethods = false)
    static class Advisor {
        @Bean
        static ConfigurationPropertiesBindHandlerAdvisor sluiceBindHandlerAdvisor() {
            return SluiceBinding::new;
        }
    }
}
