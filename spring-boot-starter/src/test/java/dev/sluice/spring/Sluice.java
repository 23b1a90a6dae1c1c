package dev.sluice.spring;

/** Every auto-configuration of the starter, as its imports file registers them, for context runners. */
final class Sluice {
    static final Class<?>[] AUTO_CONFIGURATIONS = {SluiceBackendAutoConfiguration.class,
        SluiceAutoConfiguration.class, SluiceWebMvcAutoConfiguration.class, SluiceWebFluxAutoConfiguration.class,
        SluiceRateLimitedAutoConfiguration.class, SluiceMetricsAutoConfiguration.class,
        SluiceActuatorAutoConfiguration.class};

    private Sluice() {}
}
