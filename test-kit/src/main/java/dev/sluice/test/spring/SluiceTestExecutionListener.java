package dev.sluice.test.spring;

import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Before each test method of a Spring test whose context has the test store ({@link AutoConfigureSluiceTest}):
 * every key back to a full budget, the clock back to its start. Registered in {@code META-INF/spring.factories},
 * as Spring registers its own listeners, so the annotation needs nothing else.
 */
public final class SluiceTestExecutionListener extends AbstractTestExecutionListener {

    /** After Spring's dependency injection, so the context is there, and before the test's own set-up. */
    @Override
    public int getOrder() {
        return 2100;
    }

    @Override
    public void beforeTestMethod(TestContext testContext) {
        if (testContext.hasApplicationContext()) {
            testContext.getApplicationContext().getBeanProvider(ResettableStore.class).ifAvailable(ResettableStore::reset);
        }
    }
}
