package dev.sluice.spring;

import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.servlet.HttpRateLimiter;
import dev.sluice.servlet.RateLimitPolicy;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies beans with {@link RateLimited} methods, and checks once every singleton exists that each names a
 * policy that exists, permits it can grant, and a key that parses, so a mistake fails start-up instead of
 * the first call.
 */
final class RateLimitedPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {
    private static final long serialVersionUID = 1L;

    private final transient List<Use> uses = new CopyOnWriteArrayList<>();
    private transient BeanFactory beanFactory;
    private transient Interceptor interceptor;

    RateLimitedPostProcessor() {
        setBeforeExistingAdvisors(true);
    }

    private record Use(String bean, Method method, RateLimited annotation) {
        String where() {
            return "@RateLimited of " + method.getDeclaringClass().getName() + "." + method.getName() + " (bean '"
                    + bean + "')";
        }
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        this.beanFactory = beanFactory;
        this.interceptor = new Interceptor(beanFactory);
        this.advisor = new DefaultPointcutAdvisor(AnnotationMatchingPointcut.forMethodAnnotation(RateLimited.class),
                interceptor);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        ReflectionUtils.doWithMethods(AopUtils.getTargetClass(bean), m -> {
            RateLimited a = AnnotatedElementUtils.findMergedAnnotation(m, RateLimited.class);
            if (a != null) {
                uses.add(new Use(beanName, m, a));
            }
        });
        return super.postProcessAfterInitialization(bean, beanName);
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (uses.isEmpty()) {
            return;
        }
        HttpRateLimiter rateLimiter = beanFactory.getBean(HttpRateLimiter.class);
        for (Use use : uses) {
            RateLimited a = use.annotation();
            RateLimitPolicy policy = rateLimiter.config().policies().get(a.policy());
            if (policy == null) {
                throw new IllegalStateException(use.where() + " names policy '" + a.policy()
                        + "', which is not defined; defined policies (sluice.policies.<name>): "
                        + rateLimiter.config().policies().keySet());
            }
            long limit = policy.spec().limit();
            if (a.permits() < 1 || a.permits() > limit) {
                throw new IllegalStateException(use.where() + " takes permits=" + a.permits()
                        + "; expected a whole number between 1 and " + limit + " (the limit of policy '"
                        + a.policy() + "')");
            }
            if (!a.key().isEmpty()) {
                try {
                    interceptor.expression(use.method(), a.key());
                } catch (ExpressionException e) {
                    throw new IllegalStateException(use.where() + " has key=\"" + a.key()
                            + "\", which is not a SpEL expression: " + e.getMessage(), e);
                }
            }
        }
    }

    /** Takes the permits before the method runs; releases a concurrency lease when it returns or throws. */
    private static final class Interceptor implements MethodInterceptor {
        private static final SpelExpressionParser PARSER = new SpelExpressionParser();
        private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

        private final BeanFactory beanFactory;
        private final Map<Method, Expression> expressions = new ConcurrentHashMap<>();
        private volatile HttpRateLimiter rateLimiter;

        Interceptor(BeanFactory beanFactory) {
            this.beanFactory = beanFactory;
        }

        Expression expression(Method method, String key) {
            return expressions.computeIfAbsent(method, m -> PARSER.parseExpression(key));
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            Object target = invocation.getThis();
            Method method = target == null ? invocation.getMethod()
                    : AopUtils.getMostSpecificMethod(invocation.getMethod(), AopUtils.getTargetClass(target));
            RateLimited a = AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class);
            if (a == null) {
                return invocation.proceed();
            }
            HttpRateLimiter r = rateLimiter;
            if (r == null) {
                r = beanFactory.getBean(HttpRateLimiter.class);
                rateLimiter = r;
            }
            PartitionedRateLimiter<String> limiter = r.limiter(a.policy());
            if (limiter == null) {
                throw new IllegalStateException("@RateLimited of " + method + " names policy '" + a.policy()
                        + "', which is not defined; defined policies: " + r.config().policies().keySet());
            }
            String partition = Keys.sha256(identity(a, method, invocation));
            Lease lease = limiter.tryAcquire(partition, a.permits());
            RateLimitPolicy policy = r.config().policies().get(a.policy());
            if (!lease.isAcquired() && !(r.config().shadow() || policy.shadow())) {
                throw new RateLimitExceededException(a.policy(), lease, r.refusal(a.policy(), partition, lease),
                        r.config().problemType());
            }
            try {
                return invocation.proceed();
            } finally {
                lease.close(); // gives back a concurrency lease; a no-op for every other
            }
        }

        private String identity(RateLimited a, Method method, MethodInvocation invocation) {
            if (a.key().isEmpty()) {
                return "global";
            }
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(invocation.getThis(), method,
                    invocation.getArguments(), NAMES);
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
            Object value = expression(method, a.key()).getValue(context);
            if (value == null) {
                throw new IllegalArgumentException("@RateLimited key \"" + a.key() + "\" of " + method.getName()
                        + " gave null; expected a value that tells who is limited");
            }
            return value.toString();
        }
    }
}
