package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.instance.BuildInfoProvider;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

/** The start-up warning about Hazelcast and Micrometer releases outside those Sluice supports. */
class BuiltWithTest {

    @Test
    void buildRecordsTheVersionsItWasTestedWith_andTheyAreTheOnesOnTheTestClassPath() {
        assertThat(BuiltWith.version("hazelcast")).isEqualTo(BuildInfoProvider.getBuildInfo().getVersion());
        assertThat(BuiltWith.version("micrometer")).isEqualTo(MeterRegistry.class.getPackage().getImplementationVersion());
        assertThat(BuiltWith.mismatch("hazelcast", BuildInfoProvider.getBuildInfo().getVersion(),
                BuiltWith.oldest("hazelcast"), BuiltWith.version("hazelcast"))).isNull();
    }

    /** Every Boot application was warned about the Micrometer Boot manages, 1.16.8. */
    @Test
    void bootsManagedVersions_insideTheRange_areNotWarned() {
        assertThat(BuiltWith.mismatch("micrometer", "1.16.8", BuiltWith.oldest("micrometer"), "1.17.2")).isNull();
        assertThat(BuiltWith.mismatch("hazelcast", "5.5.0", BuiltWith.oldest("hazelcast"), "5.7.0")).isNull();
        assertThat(BuiltWith.mismatch("hazelcast", "5.3.8", "5.3", "5.7.0")).isNull();
        assertThat(BuiltWith.mismatch("hazelcast", "5.7.1", "5.3", "5.7.0")).isNull();
        assertThat(BuiltWith.mismatch("hazelcast", "5.7.0-SNAPSHOT", "5.3", "5.7.0")).isNull();
        assertThat(BuiltWith.mismatch("hazelcast", null, "5.3", "5.7.0")).isNull();
    }

    @Test
    void releasesOutsideTheRange_areWarned_namingTheRange() {
        assertThat(BuiltWith.mismatch("micrometer", "1.15.4", "1.16", "1.17.2")).isEqualTo("Sluice: this application"
                + " runs micrometer 1.15.4, outside the releases Sluice supports (1.16 to 1.17; built and tested with"
                + " 1.17.2). Spring Boot's dependency management sets its own version unless the build overrides it"
                + " (with spring-boot-starter-parent: <micrometer.version>1.17.2</micrometer.version>); see the"
                + " README's Spring Boot section.");
        assertThat(BuiltWith.mismatch("micrometer", "1.18.0", "1.16", "1.17.2")).contains("(1.16 to 1.17;");
        assertThat(BuiltWith.mismatch("hazelcast", "5.2.4", "5.3", "5.7.0")).contains("(5.3 to 5.7;");
        assertThat(BuiltWith.mismatch("hazelcast", "6.0.0", "5.3", "5.7.0")).isNotNull();
    }
}
