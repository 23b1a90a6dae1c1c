package dev.sluice.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits calls of a Spring bean's method by a policy of {@code sluice.policies}: a call the policy refuses
 * throws {@link RateLimitExceededException}, which Spring MVC and WebFlux answer with {@code 429}, the
 * policy's {@code RateLimit} headers, {@code Retry-After} and a problem body, as the HTTP filters do. The
 * budget is the policy's, shared with its routes for the same identity.
 *
 * <p>Decided with {@code tryAcquire} before the method runs (a policy's queue is not waited in); a
 * concurrency policy's lease is held while the method runs. Every policy named must exist: start-up fails
 * otherwise. The store's failure mode applies as for requests; with {@code deny}, a call the store could not
 * decide throws {@link RateLimitUnavailableException} (503, not a quota refusal); with {@code throw},
 * {@link dev.sluice.limiter.DecisionUnavailableException}.
 *
 * <p>Found wherever Spring finds an annotation: on the method, or on a method it implements or overrides (an
 * interface, a superclass). It is enforced by a proxy, so only calls through the bean are limited: a call from
 * the bean to its own method ({@code this.build(...)}, self-invocation) runs unlimited. A private, final or
 * static method cannot be proxied, and annotating one fails start-up.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimited {

    /** The policy, a name under {@code sluice.policies}. */
    String policy();

    /**
     * A SpEL expression for who is limited, over the method's parameters and beans ({@code @tenants.current()});
     * the bean is the root object. {@code #p0} (or {@code #a0}) is the first parameter, always; {@code #userId}
     * names one only when the class was compiled with {@code -parameters}, and start-up fails when it was not.
     * Its value (as a string) is hashed before it becomes part of a key, like the filters' identities; prefix
     * it with its kind as they do ({@code 'principal:' + #p0}) to share a client's budget with a route. A null
     * value refuses the call ({@link RateLimitExceededException}). Empty (the default): one budget for every
     * caller.
     */
    String key() default "";

    /** Permits each call takes, between 1 and the policy's limit. */
    long permits() default 1;
}
