package dev.sluice.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an invalid Sluice configuration into Boot's "APPLICATION FAILED TO START" description and action. */
class SluiceFailureAnalyzer extends AbstractFailureAnalyzer<InvalidSluiceConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidSluiceConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), "Correct the sluice.* configuration named above (the"
                + " servlet-filter README lists every property with its default and allowed values).", cause);
    }
}
