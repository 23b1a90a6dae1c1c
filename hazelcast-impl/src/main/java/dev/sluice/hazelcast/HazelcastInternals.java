package dev.sluice.hazelcast;

import dev.sluice.limiter.store.FutureFailures;
import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.logging.Logger;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.spi.merge.MergingValue;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.WrongMethodTypeException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The one place Sluice touches Hazelcast's internal classes; everything else uses public API only.
 *
 * <p>Each internal path is resolved once, when this class loads, by name and signature (method handles, no
 * compile-time reference), so no Hazelcast release can break compiling Sluice, and a release that moved or
 * changed a class costs that path alone: it falls back to public API, and the first {@link #forInstance}
 * logs, once, which path each use takes on the running version. A path that resolved but fails when used
 * (a {@link LinkageError} or a wrong type) is switched off for good and logged, and that call is made on
 * public API instead. The paths:
 *
 * <ul>
 *   <li>{@linkplain Calls#submitToKey submitToKey without its per-call thread}. Hazelcast wraps the future
 *       that {@code IMap.submitToKey} returns (member and client alike) in a delegating future whose
 *       constructor continues the invocation on {@code ConcurrencyUtil}'s default async executor: the common
 *       pool, or, when its parallelism is 1 (2 cores), a new thread per call, which costs more CPU than the
 *       decision. The invocation future underneath can be continued on the completing thread, so on a member
 *       this starts the proxy's own {@code executeOnKeyInternal}, and on a client the same
 *       {@code MapSubmitToKey} message on the key's partition, and deserializes the answer there. Fallback:
 *       {@code submitToKey} itself, continued on Sluice's callback executor (thread and all).</li>
 *   <li>{@linkplain #setMergeExpiry The expiry of a merged entry}: the public merge types only have
 *       getters, so the split-brain merge sets the expiry on Hazelcast's {@code MapMergingEntryImpl}.
 *       Fallback: the merge through the public types alone, which keeps Hazelcast's expiry rule.</li>
 *   <li>{@linkplain Calls#roundTrip A local serialization round trip}, to prove at start-up that this
 *       instance has Sluice's serialization factory. Fallback: none needed; the members' probes prove it
 *       too, only later.</li>
 *   <li>{@linkplain #readRecord A record of the running partition}: an overflow cell lives in its keys'
 *       partition, and the processor deciding a key without state reads and writes the cell in the same
 *       operation, on the partition's thread, through the partition's {@code RecordStore} (the backup does the
 *       same on the backup replica). Fallback: no cells; a key without state at the bound is refused, which
 *       never admits more.</li>
 *   <li>{@linkplain #localVersion The running Hazelcast's own version} ({@code BuildInfoProvider}), which
 *       a client cannot read otherwise. Fallback: the jar's manifest.</li>
 * </ul>
 */
final class HazelcastInternals {
    /** Every internal path, by name, and whether it resolved on the running version (or why not). */
    private static final Map<String, String> PATHS = new LinkedHashMap<>();
    private static final AtomicBoolean LOGGED = new AtomicBoolean();

    static final String MEMBER_SUBMIT = "member submitToKey";
    static final String CLIENT_SUBMIT = "client submitToKey";
    static final String MERGE_EXPIRY = "merge expiry";
    static final String SERIALIZATION = "serialization round trip";
    static final String VERSION = "local version";
    static final String PARTITION_RECORDS = "partition records";
    private static final String AVAILABLE = "internal";

    /**
     * Runs a continuation on the thread that completes a Hazelcast future. Hazelcast's own non-async
     * {@code whenComplete} does not: its futures run it on {@code ConcurrencyUtil}'s default async
     * executor, which is the common pool, or, when the common pool's parallelism is 1 (2 cores), a new
     * thread per continuation (and {@code submitToKey}'s future does so even with no continuation). Every
     * continuation run this way is a few field writes; callers' code runs on Sluice's callback executor.
     */
    static final Executor DIRECT = Runnable::run;

    private static final MethodHandles.Lookup LOOKUP = MethodHandles.publicLookup();

    // Member: MapProxyImpl.executeOnKeyInternal(Object, EntryProcessor) -> InternalCompletableFuture<Data>.
    private static final Class<?> MEMBER_PROXY;
    private static final MethodHandle EXECUTE_ON_KEY_INTERNAL; // (IMap, Object, EntryProcessor) CompletionStage

    // Client: the MapSubmitToKey message on the key's partition.
    private static final Class<?> CLIENT_PROXY;
    private static final MethodHandle CLIENT_CONTEXT; // (IMap) Object
    private static final MethodHandle CONTEXT_INSTANCE; // (Object) Object
    private static final MethodHandle CONTEXT_SERIALIZATION; // (Object) Object
    private static final MethodHandle CONTEXT_PARTITIONS; // (Object) Object
    private static final MethodHandle PARTITION_ID; // (Object partitions, Object data) int
    private static final MethodHandle ENCODE_REQUEST; // (String, Object, Object, long) Object
    private static final MethodHandle DECODE_RESPONSE; // (Object) Object
    private static final MethodHandle THREAD_ID; // () long
    private static final MethodHandle NEW_INVOCATION; // (Object client, Object message, Object name, int) Object
    private static final MethodHandle INVOKE; // (Object invocation) CompletionStage

    // Serialization: SerializationServiceSupport.getSerializationService(), SerializationService.toData/toObject.
    private static final MethodHandle SERIALIZATION_SERVICE; // (Object instance) Object
    private static final MethodHandle TO_DATA; // (Object service, Object value) Object
    private static final MethodHandle TO_OBJECT; // (Object service, Object data) Object

    // Merge: MapMergingEntryImpl.setTtl(long), setExpirationTime(long); Clock.currentTimeMillis().
    private static final Class<?> MERGING_ENTRY;
    private static final MethodHandle SET_TTL; // (Object, long) void
    private static final MethodHandle SET_EXPIRATION_TIME; // (Object, long) void
    private static final MethodHandle EXPIRY_CLOCK; // () long

    private static final MethodHandle BUILD_VERSION; // () String

    // Partition records: HazelcastInstanceImpl.node, Node.getNodeEngine(), NodeEngine.getService(String),
    // MapService.getMapServiceContext(), MapServiceContext.getRecordStore(int, String),
    // RecordStore.get(Data, boolean, Address, boolean), set(Data, Object, long, long), delete(Data, CallerProvenance).
    private static final MethodHandle RECORD_STORE; // (Object instance, int partition, String map) Object
    private static final MethodHandle RECORD_GET; // (Object store, Object data, boolean backup) Object
    private static final MethodHandle RECORD_SET; // (Object store, Object data, Object value, long ttl) void
    private static final MethodHandle RECORD_DELETE; // (Object store, Object data) void
    private static volatile boolean partitionRecords;
    private static final Class<?> INSTANCE_PROXY;
    private static final MethodHandle ORIGINAL; // (Object proxy) Object

    /** MergingValue's deserialized value: getDeserializedValue() since 5.4, getValue() before (deprecated since). */
    private static final MethodHandle MERGING_VALUE; // (MergingValue) Object

    private static volatile boolean memberSubmit;
    private static volatile boolean clientSubmit;
    private static volatile boolean mergeExpiry;

    static {
        Class<?> memberProxy = null;
        MethodHandle executeOnKey = null;
        try {
            memberProxy = Class.forName("com.hazelcast.map.impl.proxy.MapProxyImpl");
            executeOnKey = LOOKUP.unreflect(memberProxy.getMethod("executeOnKeyInternal", Object.class,
                    EntryProcessor.class)).asType(MethodType.methodType(CompletionStage.class, IMap.class,
                    Object.class, EntryProcessor.class));
            resolved(MEMBER_SUBMIT);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unresolved(MEMBER_SUBMIT, e);
        }
        MEMBER_PROXY = memberProxy;
        EXECUTE_ON_KEY_INTERNAL = executeOnKey;

        MethodHandle serializationService = null;
        MethodHandle toData = null;
        MethodHandle toObject = null;
        try {
            Class<?> support = Class.forName("com.hazelcast.spi.impl.SerializationServiceSupport");
            Class<?> service = Class.forName("com.hazelcast.internal.serialization.SerializationService");
            serializationService = LOOKUP.unreflect(support.getMethod("getSerializationService"))
                    .asType(MethodType.methodType(Object.class, Object.class));
            toData = LOOKUP.unreflect(service.getMethod("toData", Object.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Object.class));
            toObject = LOOKUP.unreflect(service.getMethod("toObject", Object.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Object.class));
            resolved(SERIALIZATION);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unresolved(SERIALIZATION, e);
        }
        SERIALIZATION_SERVICE = serializationService;
        TO_DATA = toData;
        TO_OBJECT = toObject;

        Class<?> clientProxy = null;
        MethodHandle[] client = new MethodHandle[10];
        try {
            clientProxy = Class.forName("com.hazelcast.client.impl.proxy.ClientMapProxy");
            Class<?> context = Class.forName("com.hazelcast.client.impl.spi.ClientContext");
            Class<?> partitions = Class.forName("com.hazelcast.client.impl.spi.ClientPartitionService");
            Class<?> data = Class.forName("com.hazelcast.internal.serialization.Data");
            Class<?> message = Class.forName("com.hazelcast.client.impl.protocol.ClientMessage");
            Class<?> codec = Class.forName("com.hazelcast.client.impl.protocol.codec.MapSubmitToKeyCodec");
            Class<?> invocation = Class.forName("com.hazelcast.client.impl.spi.impl.ClientInvocation");
            if (serializationService == null) {
                throw new ClassNotFoundException("the serialization service");
            }
            client[0] = LOOKUP.unreflect(clientProxy.getMethod("getContext"))
                    .asType(MethodType.methodType(Object.class, IMap.class));
            client[1] = LOOKUP.unreflect(context.getMethod("getHazelcastInstance"))
                    .asType(MethodType.methodType(Object.class, Object.class));
            client[2] = LOOKUP.unreflect(context.getMethod("getSerializationService"))
                    .asType(MethodType.methodType(Object.class, Object.class));
            client[3] = LOOKUP.unreflect(context.getMethod("getPartitionService"))
                    .asType(MethodType.methodType(Object.class, Object.class));
            client[4] = LOOKUP.unreflect(partitions.getMethod("getPartitionId", data))
                    .asType(MethodType.methodType(int.class, Object.class, Object.class));
            client[5] = LOOKUP.unreflect(codec.getMethod("encodeRequest", String.class, data, data, long.class))
                    .asType(MethodType.methodType(Object.class, String.class, Object.class, Object.class, long.class));
            client[6] = LOOKUP.unreflect(codec.getMethod("decodeResponse", message))
                    .asType(MethodType.methodType(Object.class, Object.class));
            client[7] = LOOKUP.unreflect(Class.forName("com.hazelcast.internal.util.ThreadUtil").getMethod("getThreadId"));
            // The client instance's declared type moved (HazelcastClientInstanceImpl up to 5.3, an interface since):
            // the one public (client, message, object name, partition) constructor, whatever its first type.
            Constructor<?> chosen = null;
            for (Constructor<?> c : invocation.getConstructors()) {
                Class<?>[] p = c.getParameterTypes();
                if (p.length == 4 && p[1] == message && p[2] == Object.class && p[3] == int.class
                        && Modifier.isPublic(c.getModifiers())) {
                    chosen = c;
                }
            }
            if (chosen == null) {
                throw new NoSuchMethodException("ClientInvocation(client, ClientMessage, Object, int)");
            }
            client[8] = LOOKUP.unreflectConstructor(chosen).asType(MethodType.methodType(Object.class, Object.class,
                    Object.class, Object.class, int.class));
            client[9] = LOOKUP.unreflect(invocation.getMethod("invoke"))
                    .asType(MethodType.methodType(CompletionStage.class, Object.class));
            resolved(CLIENT_SUBMIT);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unresolved(CLIENT_SUBMIT, e);
            java.util.Arrays.fill(client, null);
        }
        CLIENT_PROXY = clientProxy;
        CLIENT_CONTEXT = client[0];
        CONTEXT_INSTANCE = client[1];
        CONTEXT_SERIALIZATION = client[2];
        CONTEXT_PARTITIONS = client[3];
        PARTITION_ID = client[4];
        ENCODE_REQUEST = client[5];
        DECODE_RESPONSE = client[6];
        THREAD_ID = client[7];
        NEW_INVOCATION = client[8];
        INVOKE = client[9];

        Class<?> mergingEntry = null;
        MethodHandle setTtl = null;
        MethodHandle setExpirationTime = null;
        MethodHandle clock = null;
        try {
            mergingEntry = Class.forName("com.hazelcast.spi.impl.merge.MapMergingEntryImpl");
            setTtl = LOOKUP.unreflect(mergingEntry.getMethod("setTtl", long.class))
                    .asType(MethodType.methodType(void.class, Object.class, long.class));
            setExpirationTime = LOOKUP.unreflect(mergingEntry.getMethod("setExpirationTime", long.class))
                    .asType(MethodType.methodType(void.class, Object.class, long.class));
            clock = LOOKUP.unreflect(Class.forName("com.hazelcast.internal.util.Clock").getMethod("currentTimeMillis"));
            resolved(MERGE_EXPIRY);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unresolved(MERGE_EXPIRY, e);
            mergingEntry = null;
        }
        MERGING_ENTRY = mergingEntry;
        SET_TTL = setTtl;
        SET_EXPIRATION_TIME = setExpirationTime;
        EXPIRY_CLOCK = clock;

        MethodHandle version = null;
        try {
            Class<?> provider = Class.forName("com.hazelcast.instance.BuildInfoProvider");
            Class<?> info = Class.forName("com.hazelcast.instance.BuildInfo");
            version = MethodHandles.filterReturnValue(LOOKUP.unreflect(provider.getMethod("getBuildInfo")),
                    LOOKUP.unreflect(info.getMethod("getVersion")))
                    .asType(MethodType.methodType(String.class));
            resolved(VERSION);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unresolved(VERSION, e);
        }
        BUILD_VERSION = version;

        MethodHandle[] records = new MethodHandle[5];
        Class<?> instanceProxy = Void.class;
        try {
            instanceProxy = Class.forName("com.hazelcast.instance.impl.HazelcastInstanceProxy");
            records[4] = LOOKUP.unreflect(instanceProxy.getMethod("getOriginal"))
                    .asType(MethodType.methodType(Object.class, Object.class));
            Class<?> instanceImpl = Class.forName("com.hazelcast.instance.impl.HazelcastInstanceImpl");
            Class<?> node = Class.forName("com.hazelcast.instance.impl.Node");
            Class<?> nodeEngine = Class.forName("com.hazelcast.spi.impl.NodeEngine");
            Class<?> mapService = Class.forName("com.hazelcast.map.impl.MapService");
            Class<?> context = Class.forName("com.hazelcast.map.impl.MapServiceContext");
            Class<?> store = Class.forName("com.hazelcast.map.impl.recordstore.RecordStore");
            Class<?> data = Class.forName("com.hazelcast.internal.serialization.Data");
            Class<?> address = Class.forName("com.hazelcast.cluster.Address");
            Class<?> provenance = Class.forName("com.hazelcast.wan.impl.CallerProvenance");
            MethodHandle engine = MethodHandles.filterReturnValue(
                    LOOKUP.unreflectGetter(instanceImpl.getField("node")),
                    LOOKUP.unreflect(node.getMethod("getNodeEngine")));
            MethodHandle service = MethodHandles.insertArguments(LOOKUP.unreflect(nodeEngine.getMethod("getService",
                    String.class)).asType(MethodType.methodType(Object.class, nodeEngine, String.class)), 1,
                    "hz:impl:mapService");
            MethodHandle contextOf = LOOKUP.unreflect(mapService.getMethod("getMapServiceContext"))
                    .asType(MethodType.methodType(context, Object.class));
            MethodHandle mapContext = MethodHandles.filterReturnValue(MethodHandles.filterReturnValue(
                    engine.asType(MethodType.methodType(nodeEngine, instanceImpl)), service), contextOf);
            MethodHandle recordStore = LOOKUP.unreflect(context.getMethod("getRecordStore", int.class, String.class));
            records[0] = MethodHandles.filterArguments(recordStore, 0, mapContext)
                    .asType(MethodType.methodType(Object.class, Object.class, int.class, String.class));
            records[1] = MethodHandles.insertArguments(LOOKUP.unreflect(store.getMethod("get", data, boolean.class,
                    address, boolean.class)), 3, null, false)
                    .asType(MethodType.methodType(Object.class, Object.class, Object.class, boolean.class));
            records[2] = LOOKUP.unreflect(store.getMethod("set", data, Object.class, long.class, long.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Object.class, Object.class, long.class,
                            long.class));
            records[2] = MethodHandles.dropReturn(MethodHandles.insertArguments(records[2], 4, -1L));
            Object notWan = provenance.getField("NOT_WAN").get(null);
            records[3] = MethodHandles.dropReturn(MethodHandles.insertArguments(LOOKUP.unreflect(store.getMethod(
                    "delete", data, provenance)), 2, notWan)
                    .asType(MethodType.methodType(boolean.class, Object.class, Object.class)));
            if (SERIALIZATION_SERVICE == null) {
                throw new ClassNotFoundException("the serialization service");
            }
            resolved(PARTITION_RECORDS);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unresolved(PARTITION_RECORDS, e);
            java.util.Arrays.fill(records, null);
            instanceProxy = Void.class;
        }
        INSTANCE_PROXY = instanceProxy;
        ORIGINAL = records[4];
        RECORD_STORE = records[0];
        RECORD_GET = records[1];
        RECORD_SET = records[2];
        RECORD_DELETE = records[3];

        MethodHandle mergingValue;
        try {
            mergingValue = LOOKUP.unreflect(MergingValue.class.getMethod("getDeserializedValue"));
        } catch (ReflectiveOperationException e) {
            try {
                mergingValue = LOOKUP.unreflect(MergingValue.class.getMethod("getValue"));
            } catch (ReflectiveOperationException none) {
                throw new ExceptionInInitializerError(none);
            }
        }
        MERGING_VALUE = mergingValue.asType(MethodType.methodType(Object.class, MergingValue.class));

        memberSubmit = EXECUTE_ON_KEY_INTERNAL != null && SERIALIZATION_SERVICE != null;
        clientSubmit = INVOKE != null;
        mergeExpiry = MERGING_ENTRY != null;
        partitionRecords = RECORD_STORE != null;
    }

    private HazelcastInternals() {}

    private static void resolved(String path) {
        PATHS.put(path, AVAILABLE);
    }

    private static void unresolved(String path, Throwable why) {
        PATHS.put(path, "public API fallback (" + why + ")");
    }

    /** Each internal path and what it uses on the running version: {@code "internal"} or the fallback and why. */
    static synchronized Map<String, String> paths() {
        return Map.copyOf(PATHS);
    }

    /** The paths that fell back to public API on the running version. */
    static synchronized List<String> fallbacks() {
        List<String> out = new ArrayList<>();
        PATHS.forEach((path, how) -> {
            if (!AVAILABLE.equals(how)) {
                out.add(path + ": " + how);
            }
        });
        return out;
    }

    /** Switches a path off for good after it failed in use: its calls go to public API from then on. */
    private static void disable(String path, Throwable why) {
        boolean first;
        synchronized (HazelcastInternals.class) {
            first = AVAILABLE.equals(PATHS.get(path));
            unresolved(path, why);
        }
        switch (path) {
            case MEMBER_SUBMIT -> memberSubmit = false;
            case CLIENT_SUBMIT -> clientSubmit = false;
            case MERGE_EXPIRY -> mergeExpiry = false;
            default -> { }
        }
        if (first) {
            Logger.getLogger(HazelcastInternals.class).warning("Sluice's internal path '" + path + "' failed on"
                    + " Hazelcast " + localVersion() + " and now uses public API: " + why);
        }
    }

    private static void logOnce() {
        if (LOGGED.compareAndSet(false, true)) {
            Logger.getLogger(HazelcastInternals.class).info("Sluice on Hazelcast " + localVersion() + ": "
                    + paths());
        }
    }

    /** The version of the Hazelcast jar this process runs ({@code "5.5.0"}), or {@code null} if unknown. */
    static String localVersion() {
        if (BUILD_VERSION != null) {
            try {
                return (String) BUILD_VERSION.invokeExact();
            } catch (Throwable e) {
                // the manifest below
            }
        }
        return HazelcastInstance.class.getPackage().getImplementationVersion();
    }

    /**
     * The deserialized value of a merging entry: public API, but named {@code getValue()} up to Hazelcast 5.3 and
     * {@code getDeserializedValue()} since 5.4, so no one call compiles and runs on both.
     */
    static Object valueOf(MergingValue<?> value) {
        try {
            return MERGING_VALUE.invokeExact(value);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new HazelcastException(e);
        }
    }

    /**
     * Sets the expiry of the record a split-brain merge stores to {@code ttlMillis} from now, on Hazelcast's
     * expiry clock ({@link Long#MAX_VALUE}: never); {@code false} when the merging value is not a map's merging
     * entry or the path is off.
     */
    static boolean setMergeExpiry(MergingValue<?> mergingValue, long ttlMillis) {
        if (!mergeExpiry || !MERGING_ENTRY.isInstance(mergingValue)) {
            return false;
        }
        try {
            SET_TTL.invokeExact((Object) mergingValue, ttlMillis);
            long expiration = ttlMillis == Long.MAX_VALUE ? Long.MAX_VALUE // never: no expiry metadata is kept
                    : (long) EXPIRY_CLOCK.invokeExact() + ttlMillis;
            SET_EXPIRATION_TIME.invokeExact((Object) mergingValue, expiration);
            return true;
        } catch (Throwable e) {
            disable(MERGE_EXPIRY, e);
            return false;
        }
    }

    /**
     * The records of partition {@code partitionId} of {@code mapName} on this member, or {@code null} when the path
     * is off or {@code instance} is not a member's own. Only for the thread that runs that partition's operations
     * (an entry processor on one of its keys): nothing else may touch a record store.
     */
    static PartitionRecords partitionRecords(HazelcastInstance instance, String mapName, int partitionId) {
        if (!partitionRecords || instance == null) {
            return null;
        }
        try {
            Object member = INSTANCE_PROXY.isInstance(instance) ? ORIGINAL.invokeExact((Object) instance) : instance;
            Object store = RECORD_STORE.invokeExact(member, partitionId, mapName);
            return new PartitionRecords(store, SERIALIZATION_SERVICE.invokeExact(member));
        } catch (Throwable e) {
            if (instance.getLifecycleService().isRunning()) { // a member shutting down says nothing of the path
                disable(PARTITION_RECORDS, e);
            }
            return null;
        }
    }

    /** One partition's records of one map, read and written on that partition's thread. */
    static final class PartitionRecords {
        private final Object store;
        private final Object serialization;

        private PartitionRecords(Object store, Object serialization) {
            this.store = store;
            this.serialization = serialization;
        }

        /** The value stored under {@code key} (expired: {@code null}); {@code backup} on a backup replica. */
        long[] read(String key, boolean backup) {
            try {
                Object data = TO_DATA.invokeExact(serialization, (Object) key);
                Object value = RECORD_GET.invokeExact(store, data, backup);
                if (value != null && !(value instanceof long[])) {
                    value = TO_OBJECT.invokeExact(serialization, value);
                }
                return (long[]) value;
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new HazelcastException(e);
            }
        }

        /** Stores {@code value} under {@code key} with {@code ttlMillis}, or removes the key when it is null. */
        void write(String key, long[] value, long ttlMillis) {
            try {
                Object data = TO_DATA.invokeExact(serialization, (Object) key);
                if (value == null) {
                    RECORD_DELETE.invokeExact(store, data);
                } else {
                    RECORD_SET.invokeExact(store, data, (Object) value, ttlMillis);
                }
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new HazelcastException(e);
            }
        }
    }

    /** The internal calls bound to one instance; logs the paths of the running version the first time. */
    static Calls forInstance(HazelcastInstance instance) {
        logOnce();
        return new Calls(instance, true);
    }

    /** Like {@link #forInstance}, with every internal call path off (tests of the fallback). */
    static Calls publicOnly(HazelcastInstance instance) {
        return new Calls(instance, false);
    }

    /** The calls of one member or client. */
    static final class Calls {
        private final HazelcastInstance instance;
        private final boolean internal;
        /** The instance's serialization service, or {@code null} without that path. */
        private final Object serialization;
        /** The client's context objects, found on its first map (a client's maps share one context). */
        private volatile Object[] client;

        private Calls(HazelcastInstance instance, boolean internal) {
            this.instance = instance;
            this.internal = internal;
            Object service = null;
            if (SERIALIZATION_SERVICE != null) {
                try {
                    service = SERIALIZATION_SERVICE.invokeExact((Object) instance);
                } catch (Throwable e) {
                    service = null; // not a Hazelcast instance of its own (a wrapper): public API only
                }
            }
            this.serialization = service;
        }

        /**
         * {@code map.submitToKey(key, processor)}, answered with a {@code type}. The returned future completes
         * on a Hazelcast response or partition thread on the internal paths, on {@code fallback} otherwise:
         * continuations must be a few field writes, or hop to another executor. It completes with an answer of
         * the type asked for, or with the invocation's own failure (unwrapped), or with a
         * {@link HazelcastException} when the owner answered something else.
         */
        <R> CompletableFuture<R> submitToKey(IMap<String, long[]> map, String key,
                EntryProcessor<String, long[], ? extends R> processor, Class<R> type, Executor fallback) {
            if (internal) {
                if (memberSubmit && serialization != null && MEMBER_PROXY.isInstance(map)) {
                    CompletionStage<?> call;
                    try {
                        if (processor instanceof HazelcastInstanceAware aware) {
                            aware.setHazelcastInstance(instance); // as submitToKey does; a remote run is re-initialized
                        }
                        call = (CompletionStage<?>) EXECUTE_ON_KEY_INTERNAL.invokeExact(map, (Object) key,
                                (EntryProcessor<?, ?, ?>) processor);
                    } catch (ClassCastException | WrongMethodTypeException | LinkageError e) {
                        disable(MEMBER_SUBMIT, e);
                        return submitToKey(map, key, processor, type, fallback);
                    } catch (Throwable e) {
                        return CompletableFuture.failedFuture(e);
                    }
                    return continued(call, this::toObject, type, DIRECT);
                }
                if (clientSubmit && map.getClass() == CLIENT_PROXY) {
                    CompletionStage<?> call;
                    Object service;
                    try {
                        Object[] c = clientContext(map);
                        service = c[1];
                        Object keyData = TO_DATA.invokeExact(service, (Object) key);
                        Object message = ENCODE_REQUEST.invokeExact(map.getName(),
                                (Object) TO_DATA.invokeExact(service, (Object) processor), keyData,
                                (long) THREAD_ID.invokeExact());
                        int partition = (int) PARTITION_ID.invokeExact(c[2], keyData);
                        Object invocation = NEW_INVOCATION.invokeExact(c[0], message, (Object) map.getName(), partition);
                        call = (CompletionStage<?>) INVOKE.invokeExact(invocation);
                    } catch (ClassCastException | WrongMethodTypeException | LinkageError e) {
                        disable(CLIENT_SUBMIT, e);
                        return submitToKey(map, key, processor, type, fallback);
                    } catch (Throwable e) {
                        return CompletableFuture.failedFuture(e);
                    }
                    Object s = service;
                    return continued(call, response -> decode(s, response), type, DIRECT);
                }
            }
            CompletionStage<? extends R> call;
            try {
                call = map.submitToKey(key, processor);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            return continued(call, Function.identity(), type, fallback);
        }

        private Object[] clientContext(IMap<String, long[]> map) throws Throwable {
            Object[] c = client;
            if (c == null) {
                Object context = CLIENT_CONTEXT.invokeExact(map);
                c = new Object[] {CONTEXT_INSTANCE.invokeExact(context), CONTEXT_SERIALIZATION.invokeExact(context),
                        CONTEXT_PARTITIONS.invokeExact(context)};
                client = c;
            }
            return c;
        }

        private Object toObject(Object data) {
            try {
                return TO_OBJECT.invokeExact(serialization, data);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new HazelcastException(e);
            }
        }

        private static Object decode(Object service, Object response) {
            try {
                return TO_OBJECT.invokeExact(service, (Object) DECODE_RESPONSE.invokeExact(response));
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new HazelcastException(e);
            }
        }

        /**
         * Proves that {@code value} survives this instance's serialization; {@code false} when it cannot be
         * checked here (no such path), so the members' probes are the proof.
         *
         * @throws RuntimeException what serializing or reading it back threw
         */
        boolean roundTrip(Object value) {
            if (serialization == null) {
                return false;
            }
            try {
                Object back = TO_OBJECT.invokeExact(serialization, (Object) TO_DATA.invokeExact(serialization, value));
                return back != null;
            } catch (RuntimeException e) {
                throw e;
            } catch (Throwable e) {
                return false;
            }
        }

        private static <R> CompletableFuture<R> continued(CompletionStage<?> invocation,
                Function<Object, Object> decode, Class<R> type, Executor executor) {
            CompletableFuture<R> result = new CompletableFuture<>();
            invocation.whenCompleteAsync((response, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(FutureFailures.unwrap(failure));
                    return;
                }
                try {
                    Object answer = decode.apply(response);
                    if (!type.isInstance(answer)) {
                        throw new HazelcastException("unexpected answer from the partition owner: " + answer
                                + " instead of a " + type.getSimpleName());
                    }
                    result.complete(type.cast(answer));
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            }, executor);
            return result;
        }
    }
}
