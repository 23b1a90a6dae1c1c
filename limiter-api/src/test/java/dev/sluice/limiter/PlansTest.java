package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

final class PlansTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private static final LimitSpec FREE = LimitSpec.fixedWindow(100, HOUR);
    private static final LimitSpec PRO = LimitSpec.fixedWindow(10_000, HOUR);

    @Test
    void resolve_knownPlan_itself_unknownOrNone_theDefault() {
        Plans plans = Plans.builder().plan("free", FREE).plan("pro", PRO).defaultPlan("free").build();
        assertEquals(Optional.of("pro"), plans.resolve("pro"));
        assertEquals(Optional.of("free"), plans.resolve("enterprise"));
        assertEquals(Optional.of("free"), plans.resolve(null));
        assertEquals(FREE, plans.primarySpec());
        assertEquals(100, plans.smallestLimit());
        assertEquals(List.of("free", "pro"), List.copyOf(plans.specs().keySet()));
        assertFalse(plans.refusesUnknownPlans());
    }

    @Test
    void resolve_refusingUnknownPlans_emptyForUnknown() {
        Plans plans = Plans.builder().plan("pro", PRO).plan("free", FREE).refuseUnknownPlans().build();
        assertEquals(Optional.empty(), plans.resolve("enterprise"));
        assertEquals(Optional.empty(), plans.resolve(null));
        assertTrue(plans.refusesUnknownPlans());
        assertEquals(PRO, plans.primarySpec(), "the first plan's");
    }

    @Test
    void build_anotherAlgorithm_namesThePlanAndWhatDiffers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Plans.builder()
                .plan("free", FREE).plan("pro", LimitSpec.tokenBucket(100, 10, HOUR)).defaultPlan("free").build());
        assertTrue(e.getMessage().contains("plan 'pro' is token-bucket, not fixed-window as plan 'free'"),
                e.getMessage());
    }

    @Test
    void build_compositeOfOtherComponents_namesThePlanAndTheComponents() {
        LimitSpec a = LimitSpec.allOf(LimitSpec.fixedWindow(10, HOUR), LimitSpec.slidingLog(5, HOUR));
        LimitSpec b = LimitSpec.allOf(LimitSpec.slidingLog(5, HOUR), LimitSpec.fixedWindow(10, HOUR));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Plans.builder().plan("free", a).plan("pro", b).refuseUnknownPlans().build());
        assertTrue(e.getMessage().contains("plan 'pro' is a composite of [sliding-log, fixed-window], not of"
                + " [fixed-window, sliding-log]"), e.getMessage());
    }

    @Test
    void build_sameAlgorithmOtherParameters_accepted() {
        LimitSpec a = LimitSpec.allOf(LimitSpec.fixedWindow(10, HOUR), LimitSpec.slidingLog(5, HOUR));
        LimitSpec b = LimitSpec.allOf(LimitSpec.fixedWindow(100, Duration.ofMinutes(1)),
                LimitSpec.slidingLog(50, Duration.ofDays(1)));
        assertEquals(2, Plans.builder().plan("free", a).plan("pro", b).refuseUnknownPlans().build().specs().size());
    }

    @Test
    void build_noPlan_refused() {
        assertThrows(IllegalArgumentException.class, () -> Plans.builder().refuseUnknownPlans().build());
    }

    @Test
    void build_neitherDefaultNorRefusal_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Plans.builder().plan("free", FREE).build());
        assertTrue(e.getMessage().contains("a default plan or a refusal"), e.getMessage());
    }

    @Test
    void build_bothDefaultAndRefusal_refused() {
        assertThrows(IllegalArgumentException.class,
                () -> Plans.builder().plan("free", FREE).defaultPlan("free").refuseUnknownPlans().build());
    }

    @Test
    void build_defaultPlanNotAPlan_namesItAndThePlans() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Plans.builder().plan("free", FREE).defaultPlan("basic").build());
        assertTrue(e.getMessage().contains("'basic' is not one of the plans [free]"), e.getMessage());
    }

    @Test
    void plan_addedTwice_refused() {
        assertThrows(IllegalArgumentException.class, () -> Plans.builder().plan("free", FREE).plan("free", PRO));
    }

    @Test
    void plan_controlCharacterInName_refused() {
        assertThrows(IllegalArgumentException.class, () -> Plans.builder().plan("fr\nee", FREE));
    }

    @Test
    void spec_unknownPlan_namesThePlans() {
        Plans plans = Plans.builder().plan("free", FREE).defaultPlan("free").build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> plans.spec("pro"));
        assertTrue(e.getMessage().contains("no plan 'pro'; plans: [free]"), e.getMessage());
    }
}
