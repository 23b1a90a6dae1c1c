package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.instance.BuildInfoProvider;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

/** The start-up warning about Hazelcast and Micrometer versions other than Sluice's. */
class BuiltWithTest {

    @Test
    void buildRecordsTheVersionsItWasTestedWith_andTheyAreTheOnesOnTheTestClassPath() {
        assertThat(BuiltWith.version("hazelcast")).isEqualTo(BuildInfoProvider.getBuildInfo().getVersion());
        assertThat(BuiltWith.version("micrometer")).isEqualTo(MeterRegistry.class.getPackage().getImplementationVersion());
        assertThat(BuiltWith.mismatch("hazelcast", BuildInfoProvider.getBuildInfo().getVersion(),
                BuiltWith.version("hazelcast"))).isNull();
    }

    @Test
    void bootsManagedVersions_warned_patchReleasesNot() {
        assertThat(BuiltWith.mismatch("hazelcast", "5.5.0", "5.7.0")).isEqualTo("Sluice: this application runs"
                + " hazelcast 5.5.0, Sluice was built and tested with 5.7.0. Spring Boot's dependency management sets"
                + " its own version unless the build overrides it (with spring-boot-starter-parent:"
                + " <hazelcast.version>5.7.0</hazelcast.version>); see the README's Spring Boot section.");
        assertThat(BuiltWith.mismatch("micrometer", "1.16.6", "1.17.2")).contains("<micrometer.version>1.17.2<");
        assertThat(BuiltWith.mismatch("hazelcast", "5.7.1", "5.7.0")).isNull();
        assertThat(BuiltWith.mismatch("hazelcast", "5.7.0-SNAPSHOT", "5.7.0")).isNull();
        assertThat(BuiltWith.mismatch("hazelcast", null, "5.7.0")).isNull();
    }
}
