package dev.sluice.spring;

import dev.sluice.http.PlanResolver;
import java.security.Principal;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The resolvers that {@code sluice.policies.<name>.plan-from} names in a Spring application: {@code bean} (the
 * application's only {@link PlanResolver} bean) or {@code bean:<name>}; and, where Spring Security is present, the
 * authenticated principal's {@code claim:<name>} or {@code attribute:<name>} (the claims of a JWT, the attributes of an
 * OAuth2 principal or of an introspected token, read alike) and {@code authority:<prefix>} (the rest of the first
 * granted authority with that prefix, {@code PLAN_PRO} for {@code authority:PLAN_}). The principal is the one the
 * filter sees: a policy that reads it is decided after Spring Security's chain.
 */
final class SluicePlanSource implements PlanResolver.Source {
    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.core.Authentication", SluicePlanSource.class.getClassLoader());

    private final ListableBeanFactory beans;

    SluicePlanSource(ListableBeanFactory beans) {
        this.beans = Objects.requireNonNull(beans, "beans");
    }

    @Override
    public PlanResolver resolver(String kind, String name) {
        return switch (kind) {
            case "bean" -> bean(name);
            case "claim", "attribute" -> SECURITY ? SpringSecurity.attribute(name) : null;
            case "authority" -> SECURITY ? SpringSecurity.authority(name) : null;
            default -> null;
        };
    }

    private PlanResolver bean(String name) {
        if (name != null) {
            try {
                return beans.getBean(name, PlanResolver.class);
            } catch (BeansException e) {
                throw new IllegalArgumentException("no PlanResolver bean named '" + name + "': " + e.getMessage(), e);
            }
        }
        String[] names = beans.getBeanNamesForType(PlanResolver.class);
        if (names.length != 1) {
            throw new IllegalArgumentException("plan-from bean needs exactly one PlanResolver bean, found "
                    + (names.length == 0 ? "none" : String.join(", ", names) + "; name one with bean:<name>"));
        }
        return beans.getBean(names[0], PlanResolver.class);
    }

    /** A claim, attribute or authority as a plan name: text, a number, or a list of one of them; else none. */
    static String text(Object value) {
        if (value instanceof Collection<?> c) {
            return c.size() == 1 ? text(c.iterator().next()) : null;
        }
        return value instanceof String || value instanceof Number || value instanceof Boolean
                ? String.valueOf(value).strip() : null;
    }

    /** Spring Security's principal; loaded only where it is present. */
    private static final class SpringSecurity {
        private static final boolean OAUTH2 = ClassUtils.isPresent(
                "org.springframework.security.oauth2.core.ClaimAccessor", SluicePlanSource.class.getClassLoader());

        private SpringSecurity() {}

        static PlanResolver attribute(String name) {
            return request -> {
                Principal p = request.getUserPrincipal();
                if (!(p instanceof org.springframework.security.core.Authentication a) || !OAUTH2) {
                    return null;
                }
                return text(OAuth2.attribute(a, name));
            };
        }

        static PlanResolver authority(String prefix) {
            return request -> {
                Principal p = request.getUserPrincipal();
                if (!(p instanceof org.springframework.security.core.Authentication a)) {
                    return null;
                }
                for (org.springframework.security.core.GrantedAuthority g : a.getAuthorities()) {
                    String authority = g.getAuthority();
                    if (authority != null && authority.startsWith(prefix) && authority.length() > prefix.length()) {
                        return authority.substring(prefix.length());
                    }
                }
                return null;
            };
        }
    }

    /** The OAuth2 principals; loaded only where spring-security-oauth2-core is present. */
    private static final class OAuth2 {
        private OAuth2() {}

        static Object attribute(org.springframework.security.core.Authentication a, String name) {
            Object principal = a.getPrincipal();
            if (principal instanceof org.springframework.security.oauth2.core.ClaimAccessor claims) {
                return claims.getClaims().get(name); // a JWT (a resource server's JwtAuthenticationToken)
            }
            if (principal instanceof org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal o) {
                Map<String, Object> attributes = o.getAttributes(); // an introspected token, an OAuth2 login
                return attributes == null ? null : attributes.get(name);
            }
            return null;
        }
    }
}
