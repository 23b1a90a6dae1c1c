package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.http.PlanResolver;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/** {@code plan-from: bean} and {@code bean:<name>}: the application's {@link PlanResolver} beans. */
final class SluicePlanSourceTest {
    private static final PlanResolver PRO = request -> "pro";
    private static final PlanResolver FREE = request -> "free";

    @Test
    void bean_theOnlyPlanResolver() {
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        beans.addBean("plans", PRO);
        assertThat(new SluicePlanSource(beans).resolver("bean", null)).isSameAs(PRO);
    }

    @Test
    void bean_none_orSeveral_refusedNamingThem() {
        assertThatThrownBy(() -> new SluicePlanSource(new StaticListableBeanFactory()).resolver("bean", null))
                .hasMessageContaining("exactly one PlanResolver bean, found none");
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        beans.addBean("pro", PRO);
        beans.addBean("free", FREE);
        assertThatThrownBy(() -> new SluicePlanSource(beans).resolver("bean", null))
                .hasMessageContaining("found pro, free; name one with bean:<name>");
        assertThat(new SluicePlanSource(beans).resolver("bean", "free")).isSameAs(FREE);
        assertThatThrownBy(() -> new SluicePlanSource(beans).resolver("bean", "gold"))
                .hasMessageContaining("no PlanResolver bean named 'gold'");
    }

    @Test
    void text_ofAClaim() {
        assertThat(SluicePlanSource.text(" pro ")).isEqualTo("pro");
        assertThat(SluicePlanSource.text(3)).isEqualTo("3");
        assertThat(SluicePlanSource.text(List.of("pro"))).isEqualTo("pro");
        assertThat(SluicePlanSource.text(List.of("pro", "free"))).isNull();
        assertThat(SluicePlanSource.text(new Object())).isNull();
    }
}
