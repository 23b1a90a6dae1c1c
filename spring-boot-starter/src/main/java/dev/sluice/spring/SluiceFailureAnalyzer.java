package dev.sluice.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Turns an invalid Sluice configuration into Boot's "APPLICATION FAILED TO START" description and action; before
 * Boot's own analysis of a binding failure, which a value refused while {@code sluice.*} is bound also is.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class SluiceFailureAnalyzer extends AbstractFailureAnalyzer<InvalidSluiceConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidSluiceConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), "Correct the sluice.* configuration named above (the"
                + " http-core README lists every property with its default and allowed values).", cause);
    }
}
