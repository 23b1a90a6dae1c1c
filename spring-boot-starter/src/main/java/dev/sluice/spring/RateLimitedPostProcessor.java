package dev.sluice.spring;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.http.HttpDecision;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.RateLimitPolicy;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Proxies beans with {@link RateLimited} methods, and checks once every singleton exists that each names a
 * policy that exists, permits it can grant, and a key that parses, so a mistake fails start-up instead of
 * the first call.
 *
 * <p>The annotation is found as Spring finds annotations, on the method or any method it overrides or
 * implements (an interface, as OpenAPI generators write them, or a superclass), and the same lookup decides
 * what is validated, what the proxy intercepts and what the interceptor enforces: the most specific method's
 * merged annotation ({@link AopUtils#getMostSpecificMethod}, {@link AnnotatedElementUtils}). Proxies are
 * class-based, so a controller stays a controller and every public or protected method can be intercepted; a
 * {@code @RateLimited} method that no proxy can intercept (private, final, static) fails start-up.
 */
final class RateLimitedPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {
    private static final long serialVersionUID = 1L;

    private final transient List<Use> uses = new CopyOnWriteArrayList<>();
    private transient BeanFactory beanFactory;
    private transient Interceptor interceptor;

    RateLimitedPostProcessor() {
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
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
        this.advisor = new DefaultPointcutAdvisor(new RateLimitedPointcut(), interceptor);
    }

    /** The methods whose most specific version carries {@link RateLimited}, directly or inherited. */
    private static final class RateLimitedPointcut extends StaticMethodMatcherPointcut {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return annotation(method, targetClass) != null;
        }
    }

    /** The one lookup: the merged annotation of the most specific method, found on it or what it overrides. */
    static RateLimited annotation(Method method, Class<?> targetClass) {
        Method specific = targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass);
        return AnnotatedElementUtils.findMergedAnnotation(specific, RateLimited.class);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        ReflectionUtils.doWithMethods(type, m -> {
            RateLimited a = annotation(m, type);
            if (a != null) {
                uses.add(new Use(beanName, AopUtils.getMostSpecificMethod(m, type), a));
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
            int modifiers = use.method().getModifiers();
            if (java.lang.reflect.Modifier.isPrivate(modifiers) || java.lang.reflect.Modifier.isFinal(modifiers)
                    || java.lang.reflect.Modifier.isStatic(modifiers)) {
                throw new InvalidSluiceConfigurationException(use.where() + " is on a private, final or static method,"
                        + " which no proxy can intercept, so it would never be enforced; make the method public (or"
                        + " protected) and not final, or remove the annotation", null);
            }
            RateLimitPolicy policy = rateLimiter.config().policies().get(a.policy());
            if (policy == null) {
                throw new InvalidSluiceConfigurationException(use.where() + " names policy '" + a.policy()
                        + "', which is not defined; defined policies (sluice.policies.<name>): "
                        + rateLimiter.config().policies().keySet(), null);
            }
            long limit = policy.spec().limit();
            if (a.permits() < 1 || a.permits() > limit) {
                throw new InvalidSluiceConfigurationException(use.where() + " takes permits=" + a.permits()
                        + "; expected a whole number between 1 and " + limit + " (the limit of policy '"
                        + a.policy() + "')", null);
            }
            if (!a.key().isEmpty()) {
                checkKey(use, interceptor);
            }
        }
        beanFactory.getBeanProvider(ProtectionReport.class).ifAvailable(report -> uses.forEach(use ->
                report.use(use.annotation().policy(), "@RateLimited " + use.method().getDeclaringClass().getName()
                        + "." + use.method().getName() + (use.annotation().key().isEmpty()
                                ? " (one budget for every caller)" : " (key " + use.annotation().key() + ")"))));
    }

    private static final String HOW_TO_NAME = "name a parameter by position, #p0 (or #a0) for the first, which"
            + " always works, or by name (#tenant), which needs the class compiled with -parameters (Maven:"
            + " <parameters>true</parameters> in maven-compiler-plugin, as Boot's parent POM sets; Gradle:"
            + " options.compilerArgs << '-parameters')";

    /**
     * The key parses, and every variable it reads exists in the evaluation context the interceptor builds: a
     * parameter by position ({@code #p0}, {@code #a0}) or by the name the compiled class carries. A name the class
     * does not carry (compiled without {@code -parameters}) would otherwise be null at every call.
     */
    private static void checkKey(Use use, Interceptor interceptor) {
        RateLimited a = use.annotation();
        Expression expression;
        try {
            expression = interceptor.expression(use.method(), a.key());
        } catch (ExpressionException e) {
            throw new InvalidSluiceConfigurationException(use.where() + " has key=\"" + a.key()
                    + "\", which is not a SpEL expression (" + e.getMessage() + "); " + HOW_TO_NAME, e);
        }
        if (!(expression instanceof SpelExpression spel)) {
            return;
        }
        int count = use.method().getParameterCount();
        String[] names = Interceptor.NAMES.getParameterNames(use.method());
        java.util.Set<String> known = new java.util.HashSet<>(java.util.Set.of("root", "this"));
        for (int i = 0; i < count; i++) {
            known.add("p" + i);
            known.add("a" + i);
            if (names != null) {
                known.add(names[i]);
            }
        }
        java.util.ArrayDeque<SpelNode> nodes = new java.util.ArrayDeque<>(List.of(spel.getAST()));
        while (!nodes.isEmpty()) {
            SpelNode node = nodes.pop();
            for (int i = 0; i < node.getChildCount(); i++) {
                nodes.push(node.getChild(i));
            }
            if (node instanceof VariableReference) {
                String variable = node.toStringAST().substring(1);
                if (!known.contains(variable)) {
                    String seen = names != null ? "its parameters are named " + java.util.Arrays.toString(names)
                            : count == 0 ? "the method takes no parameters"
                            : "its class was compiled without -parameters, so its " + count
                                    + " parameter(s) have no names at run time";
                    throw new InvalidSluiceConfigurationException(use.where() + " has key=\"" + a.key()
                            + "\", which reads #" + variable + ", but " + seen + "; " + HOW_TO_NAME, null);
                }
            }
        }
    }

    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
            RateLimitedPostProcessor.class.getClassLoader());
    private static final boolean WEB = ClassUtils.isPresent("org.springframework.web.ErrorResponse",
            RateLimitedPostProcessor.class.getClassLoader());

    /** The refusal: Spring's {@code ErrorResponse} too where spring-web is present, a plain exception elsewhere. */
    static RuntimeException refused(String policy, Lease lease, HttpDecision answer, java.net.URI problemType) {
        return refused(policy, lease, answer, problemType, answer.detail());
    }

    static RuntimeException refused(String policy, Lease lease, HttpDecision answer, java.net.URI problemType,
            String message) {
        if (lease.isDegraded()) {
            return WEB ? WebRefusals.unavailable(policy, lease, answer, HttpRateLimiterConfig.TEMPORARY_REDUCED_CAPACITY)
                    : new RateLimitUnavailableException(policy, lease, answer);
        }
        return WEB ? WebRefusals.exceeded(policy, lease, answer, problemType, message)
                : new RateLimitExceededException(policy, lease, answer, message);
    }


    /**
     * Takes the permits before the method runs; releases a concurrency lease when it returns or throws. A
     * method that returns a {@code Mono}, {@code Flux} or {@link CompletionStage} is asked with
     * {@code acquireAsync}, so no thread (an event loop least of all) waits for the store; it runs once the
     * permits are granted and holds a concurrency lease until its result completes.
     */
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
            Class<?> type = target == null ? null : AopUtils.getTargetClass(target);
            Method method = type == null ? invocation.getMethod()
                    : AopUtils.getMostSpecificMethod(invocation.getMethod(), type);
            RateLimited a = annotation(invocation.getMethod(), type);
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
            RateLimitPolicy policy = r.config().policies().get(a.policy());
            boolean shadow = r.config().shadow() || policy.shadow();
            HttpRateLimiter decider = r;
            String identity = identity(a, method, invocation);
            if (identity == null) {
                if (shadow) {
                    return invocation.proceed();
                }
                // Nobody to count it against: refused, as an unlimited pass would let every anonymous call through.
                Lease none = Lease.refused(0, policy.spec().limit(), java.util.Optional.empty(), java.time.Duration.ZERO);
                RuntimeException refused = refused(a.policy(), none, r.refusal(a.policy(), "none", none, a.permits()),
                        r.config().problemType(), "@RateLimited key \"" + a.key() + "\" of " + method.getName()
                        + " gave null (no one to count the call against, an anonymous caller say), so the call is"
                        + " refused; give the key a value for every caller, e.g. a fallback: (#p0 ?: 'anonymous')");
                if (CompletionStage.class.isAssignableFrom(method.getReturnType())) {
                    return CompletableFuture.failedFuture(refused);
                }
                if (REACTOR && Reactive.handles(method.getReturnType())) {
                    return Reactive.error(method.getReturnType(), refused);
                }
                throw refused;
            }
            String partition = decider.partition(identity);
            Function<Lease, RuntimeException> refusal = lease -> lease.isAcquired() || shadow ? null
                    : refused(a.policy(), lease, decider.refusal(a.policy(), partition, lease, a.permits()),
                            decider.config().problemType());
            Class<?> returned = method.getReturnType();
            if (REACTOR && Reactive.handles(returned)) {
                return Reactive.limit(returned, () -> limiter.acquireAsync(partition, a.permits()), refusal, invocation);
            }
            if (CompletionStage.class.isAssignableFrom(returned)) {
                return limitAsync(limiter.acquireAsync(partition, a.permits()), refusal, invocation);
            }
            Lease lease = limiter.tryAcquire(partition, a.permits());
            RuntimeException refused = refusal.apply(lease);
            if (refused != null) {
                throw refused;
            }
            try {
                return invocation.proceed();
            } finally {
                lease.close(); // gives back a concurrency lease; a no-op for every other
            }
        }

        /** A method returning a {@link CompletionStage} runs once the permits are granted; the lease is held until it completes. */
        private static CompletableFuture<Object> limitAsync(CompletableFuture<Lease> acquired,
                Function<Lease, RuntimeException> refusal, MethodInvocation invocation) {
            return acquired.thenCompose(lease -> {
                RuntimeException refused = refusal.apply(lease);
                if (refused != null) {
                    return CompletableFuture.failedFuture(refused);
                }
                CompletionStage<?> result;
                try {
                    result = (CompletionStage<?>) invocation.proceed();
                } catch (Throwable t) {
                    lease.close();
                    return CompletableFuture.failedFuture(t);
                }
                return result.toCompletableFuture().<Object>thenApply(v -> v)
                        .whenComplete((v, e) -> lease.close());
            });
        }

        private String identity(RateLimited a, Method method, MethodInvocation invocation) {
            if (a.key().isEmpty()) {
                return "global";
            }
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(invocation.getThis(), method,
                    invocation.getArguments(), NAMES);
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
            Object value = expression(method, a.key()).getValue(context);
            return value == null ? null : value.toString();
        }
    }

    /** Reactor types, only touched when Reactor is on the classpath. */
    private static final class Reactive {
        private Reactive() {}

        static Object error(Class<?> returned, RuntimeException e) {
            Mono<Object> refused = refusal(e);
            return Mono.class.isAssignableFrom(returned) ? refused : refused.flux();
        }

        /**
         * A refusal signalled on Reactor's parallel scheduler. Decided at once (in-process stores, the
         * pre-filter), it would otherwise be answered within the very call that dispatched a keep-alive request
         * Reactor Netty had held back, which leaves the connection no longer read, so the client's next request on
         * it waits forever (reactor-netty#4361, before 1.3.8). A grant goes on where it was made.
         */
        private static <T> Mono<T> refusal(RuntimeException e) {
            return Mono.<T>error(e).publishOn(Schedulers.parallel());
        }

        static boolean handles(Class<?> returned) {
            return Mono.class.isAssignableFrom(returned) || Flux.class.isAssignableFrom(returned);
        }

        static Object limit(Class<?> returned, Supplier<CompletableFuture<Lease>> acquire,
                Function<Lease, RuntimeException> refusal, MethodInvocation invocation) {
            Mono<Lease> granted = Mono.fromFuture(acquire).flatMap(lease -> {
                RuntimeException refused = refusal.apply(lease);
                return refused != null ? Reactive.<Lease>refusal(refused) : Mono.just(lease);
            });
            if (Mono.class.isAssignableFrom(returned)) {
                return granted.flatMap(lease -> Mono.usingWhen(Mono.just(lease), l -> (Mono<?>) proceed(invocation),
                        l -> Mono.fromRunnable(l::close)));
            }
            return granted.flatMapMany(lease -> Flux.usingWhen(Mono.just(lease), l -> (Flux<?>) proceed(invocation),
                    l -> Mono.fromRunnable(l::close)));
        }

        private static Object proceed(MethodInvocation invocation) {
            try {
                return invocation.proceed();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }
}
