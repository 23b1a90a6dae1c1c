package dev.sluice.http;

import static dev.sluice.http.SettingText.quote;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.AlgorithmDescription.Parameter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Fills {@link SluiceSettings} from plain {@code sluice.*} properties, where there is no Spring: each property is a
 * setter of the model named in kebab case, as Spring Boot's binder finds it, so no name is written here. It checks
 * what only text can get wrong (syntax, ranges, unknown keys, by {@link SettingText}); {@link SettingsRules} checks
 * the rest.
 */
final class PropertiesReader {
    static final String PREFIX = "sluice.";
    static final String POLICIES = PREFIX + "policies.";
    static final String ROUTES = PREFIX + "routes.";
    static final String API_KEY_HEADER = "sluice.client.api-key-header";
    /** Every property outside {@code sluice.policies.} and {@code sluice.routes.}. */
    static final List<String> TOP_LEVEL = leaves(SluiceSettings.class, PREFIX);

    /** The algorithms a policy names; a composite is none here: a route names several policies instead. */
    static final List<AlgorithmDescription> POLICY_ALGORITHMS = AlgorithmDescription.all().stream()
            .filter(d -> d.kind() != AlgorithmDescription.Kind.COMPOSITE).toList();
    static final List<String> ALGORITHMS = POLICY_ALGORITHMS.stream().map(AlgorithmDescription::name).toList();
    /** The settings of a policy's limit, by algorithm, as its description names them; the others apply to all. */
    static final Map<String, Set<String>> ALGORITHM_KEYS = POLICY_ALGORITHMS.stream()
            .collect(Collectors.toUnmodifiableMap(AlgorithmDescription::name,
                    d -> d.parameters().stream().map(Parameter::setting).collect(Collectors.toUnmodifiableSet())));
    static final Set<String> COMMON_POLICY_KEYS = commonPolicyKeys();
    static final Set<String> ROUTE_KEYS = settings(SluiceSettings.RouteSettings.class).keySet();

    private PropertiesReader() {}

    /** One setting of a group of the model: its property name and accessors. */
    record Setting(String name, Method getter, Method setter) {
        Type type() {
            return getter.getGenericReturnType();
        }

        boolean isMap() {
            return Map.class.isAssignableFrom(getter.getReturnType());
        }

        /** A group of settings ({@code sluice.client.*}), rather than a value. */
        boolean isGroup() {
            return getter.getReturnType().getDeclaringClass() == SluiceSettings.class
                    && !getter.getReturnType().isEnum();
        }

        /** The class of a map's values. */
        Class<?> elements() {
            return (Class<?>) ((ParameterizedType) type()).getActualTypeArguments()[1];
        }

        Object get(Object bean) {
            return invoke(getter, bean);
        }

        void set(Object bean, Object value) {
            invoke(setter, bean, value);
        }
    }

    /** The settings of a group of the model, by property name: each getter that has a setter. */
    static Map<String, Setting> settings(Class<?> type) {
        Map<String, Setting> settings = new TreeMap<>();
        for (Method getter : type.getMethods()) {
            String name = getter.getName();
            int skip = name.startsWith("get") ? 3 : name.startsWith("is") ? 2 : 0;
            if (skip == 0 || name.length() == skip || getter.getParameterCount() != 0
                    || getter.getDeclaringClass() == Object.class || Modifier.isStatic(getter.getModifiers())) {
                continue;
            }
            try {
                Method setter = type.getMethod("set" + name.substring(skip), getter.getReturnType());
                String property = kebab(Character.toLowerCase(name.charAt(skip)) + name.substring(skip + 1));
                settings.put(property, new Setting(property, getter, setter));
            } catch (NoSuchMethodException e) {
                // read-only: not a setting
            }
        }
        return settings;
    }

    /** The settings {@code properties} write; keys outside {@code sluice.} are ignored. */
    static SluiceSettings read(Properties properties) {
        SluiceSettings settings = new SluiceSettings();
        Function<String, String> written = written(properties);
        for (String key : new TreeSet<>(properties.stringPropertyNames())) {
            if (key.startsWith(PREFIX)) {
                set(settings, PREFIX, key, written.apply(key));
            }
        }
        return settings;
    }

    /** Sets the property {@code key}, below {@code base} of {@code bean}, to {@code text}. */
    private static void set(Object bean, String base, String key, String text) {
        String rest = key.substring(base.length());
        int dot = rest.indexOf('.');
        Setting s = settings(bean.getClass()).get(dot < 0 ? rest : rest.substring(0, dot));
        if (s != null && s.isMap() && dot > 0) {
            String entry = rest.substring(dot + 1);
            String nested = nestedMapEntry(s.elements(), entry);
            if (nested != null) {
                Object element = mapOf(s, bean).computeIfAbsent(nested, k -> create(s.elements()));
                set(element, base + s.name() + "." + nested + ".", key, text);
                return;
            }
            int last = entry.lastIndexOf('.');
            if (last <= 0 || last == entry.length() - 1) {
                throw new IllegalArgumentException("malformed property " + key + "=" + quote(text) + "; expected "
                        + base + s.name() + (s.elements() == SluiceSettings.RouteSettings.class ? ".<id>" : ".<name>")
                        + ".<setting>");
            }
            Object element = mapOf(s, bean).computeIfAbsent(entry.substring(0, last), k -> create(s.elements()));
            Map<String, Setting> settings = settings(s.elements());
            Setting leaf = settings.get(entry.substring(last + 1));
            if (leaf == null) {
                throw new IllegalArgumentException("unknown property " + key + "=" + quote(text) + "; expected one of "
                        + settings.keySet());
            }
            leaf.set(element, SettingText.value(key, text, leaf.type()));
        } else if (s != null && s.isGroup() && dot > 0) {
            set(s.get(bean), base + s.name() + ".", key, text);
        } else if (s != null && !s.isGroup() && !s.isMap() && dot < 0) {
            s.set(bean, SettingText.value(key, text, s.type()));
        } else {
            throw new IllegalArgumentException("unknown property " + key + "=" + quote(text) + "; expected "
                    + POLICIES + "<name>.<setting>, " + ROUTES + "<id>.<setting> or one of " + TOP_LEVEL);
        }
    }

    /** The map a setting of {@code bean} holds, set to an empty one first if it holds none (a map not set yet). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> mapOf(Setting s, Object bean) {
        if (s.get(bean) == null) {
            s.set(bean, new java.util.LinkedHashMap<>());
        }
        return (Map<String, Object>) s.get(bean);
    }

    /**
     * The element name of {@code entry} (what follows a map's name) when it reaches into a map of the element
     * ({@code api.plans.free.permit-limit}: {@code api}); else null.
     */
    private static String nestedMapEntry(Class<?> elements, String entry) {
        for (Setting inner : settings(elements).values()) {
            int at = inner.isMap() ? entry.indexOf("." + inner.name() + ".") : -1;
            if (at > 0) {
                return entry.substring(0, at);
            }
        }
        return null;
    }

    /**
     * Each property's value as written, for messages: stripped, except a route's pattern, which is checked as
     * written (trimming would accept one that can never match).
     */
    static Function<String, String> written(Properties properties) {
        return key -> {
            String v = properties.getProperty(key);
            return v == null || key.endsWith(".pattern") ? v : v.strip();
        };
    }

    /** See {@link SluiceSettings#checkWritten(String, String)}. */
    static void checkWritten(String property, String value) {
        Type type = typeOf(SluiceSettings.class, PREFIX, property);
        if (type instanceof Class<?> && value != null) {
            SettingText.value(property, property.endsWith(".pattern") ? value : value.strip(), type);
        }
    }

    /** The type of the value {@code property} names below {@code base} of {@code group}, or null if none. */
    private static Type typeOf(Class<?> group, String base, String property) {
        if (!property.startsWith(base)) {
            return null;
        }
        String rest = property.substring(base.length());
        for (Setting s : settings(group).values()) {
            if (s.isMap() && rest.startsWith(s.name() + ".")) {
                String entry = rest.substring(s.name().length() + 1);
                String nested = nestedMapEntry(s.elements(), entry);
                if (nested != null) {
                    return typeOf(s.elements(), base + s.name() + "." + nested + ".", property);
                }
                Setting leaf = settings(s.elements()).get(entry.substring(entry.lastIndexOf('.') + 1));
                return entry.lastIndexOf('.') <= 0 || leaf == null ? null : leaf.type();
            }
            if (s.isGroup() && rest.startsWith(s.name() + ".")) {
                return typeOf(s.getter().getReturnType(), base + s.name() + ".", property);
            }
            if (!s.isGroup() && !s.isMap() && rest.equals(s.name())) {
                return s.type();
            }
        }
        return null;
    }

    /** Every property below {@code base} of {@code group} outside its maps. */
    private static List<String> leaves(Class<?> group, String base) {
        List<String> leaves = new ArrayList<>();
        for (Setting s : settings(group).values()) {
            if (s.isGroup()) {
                leaves.addAll(leaves(s.getter().getReturnType(), base + s.name() + "."));
            } else if (!s.isMap()) {
                leaves.add(base + s.name());
            }
        }
        return List.copyOf(leaves);
    }

    private static Set<String> commonPolicyKeys() {
        Set<String> common = new TreeSet<>(settings(SluiceSettings.PolicySettings.class).keySet());
        ALGORITHM_KEYS.values().forEach(common::removeAll);
        return Set.copyOf(common);
    }

    /** {@code permitLimit} as a property writes it: {@code permit-limit}. */
    static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static Object create(Class<?> type) {
        try {
            return type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + type.getName(), e);
        }
    }

    private static Object invoke(Method method, Object bean, Object... args) {
        try {
            return method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
