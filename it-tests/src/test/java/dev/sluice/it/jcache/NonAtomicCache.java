package dev.sluice.it.jcache;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.locks.LockSupport;
import javax.cache.Cache;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * Test-only wrappers of a real cache whose {@code invoke} misbehaves; every other method is delegated.
 */
final class NonAtomicCache {
    private NonAtomicCache() {}

    /** {@code invoke} as get, process, put, without any lock, and a pause that widens the race. */
    static Cache<String, long[]> nonAtomic(Cache<String, long[]> delegate) {
        return wrap(delegate, (key, processor, arguments) -> {
            SimpleEntry entry = new SimpleEntry(key, delegate.get(key));
            LockSupport.parkNanos(50_000);
            Object result = processor.process(entry, arguments);
            if (entry.removed) {
                delegate.remove(key);
            } else if (entry.updated) {
                delegate.put(key, entry.value);
            }
            return result;
        });
    }

    /** {@code invoke} that runs {@code before} first (e.g. to block), then the real invoke. */
    static Cache<String, long[]> before(Cache<String, long[]> delegate, Runnable before) {
        return wrap(delegate, (key, processor, arguments) -> {
            before.run();
            return delegate.invoke(key, processor, arguments);
        });
    }

    interface Invoke {
        Object invoke(String key, EntryProcessor<String, long[], Object> processor, Object[] arguments);
    }

    @SuppressWarnings("unchecked")
    private static Cache<String, long[]> wrap(Cache<String, long[]> delegate, Invoke invoke) {
        return (Cache<String, long[]>) Proxy.newProxyInstance(NonAtomicCache.class.getClassLoader(),
                new Class<?>[] {Cache.class}, (proxy, method, args) -> {
                    if (method.getName().equals("invoke")) {
                        return invoke.invoke((String) args[0], (EntryProcessor<String, long[], Object>) args[1],
                                (Object[]) args[2]);
                    }
                    return call(method, delegate, args);
                });
    }

    private static Object call(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static final class SimpleEntry implements MutableEntry<String, long[]> {
        private final String key;
        long[] value;
        boolean updated;
        boolean removed;

        SimpleEntry(String key, long[] value) {
            this.key = key;
            this.value = value;
        }

        @Override public boolean exists() { return value != null; }
        @Override public void remove() { value = null; removed = true; updated = false; }
        @Override public void setValue(long[] v) { value = v; updated = true; removed = false; }
        @Override public String getKey() { return key; }
        @Override public long[] getValue() { return value; }
        @Override public <T> T unwrap(Class<T> clazz) { throw new IllegalArgumentException("unwrap " + clazz); }
    }
}
