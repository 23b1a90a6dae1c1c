package dev.sluice.hazelcast;

import com.hazelcast.client.impl.clientside.HazelcastClientInstance;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.MapSubmitToKeyCodec;
import com.hazelcast.client.impl.proxy.ClientMapProxy;
import com.hazelcast.client.impl.spi.ClientContext;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.util.ThreadUtil;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * {@code IMap.submitToKey} without its per-call thread.
 *
 * <p>Hazelcast 5.7 wraps the invocation future that {@code submitToKey} returns (member and client alike)
 * in a delegating future whose constructor continues the invocation on {@code ConcurrencyUtil}'s default
 * async executor: the common pool, or, when its parallelism is 1 (2 cores), a new thread per call. Measured
 * in {@code benchmarks/}, that thread costs more CPU than the decision. The invocation future underneath
 * can be continued on the completing thread, so this class starts the same invocation as
 * {@code submitToKey} (on a member, the proxy's own {@code executeOnKeyInternal}; on a client, the same
 * {@code MapSubmitToKey} message on the key's partition) and deserializes the answer there. Any other map
 * (a near-cached client proxy, a wrapper) goes through {@code submitToKey}, thread and all.
 *
 * <p>The returned future completes on a Hazelcast response or partition thread: continuations must be
 * a few field writes, or hop to another executor. It completes with an answer of the type asked for, or
 * with the invocation's own failure (unwrapped), or with a {@link HazelcastException} when the owner
 * answered something else.
 */
final class KeyCalls {
    /**
     * Runs a continuation on the thread that completes a Hazelcast future. Hazelcast's own non-async
     * {@code whenComplete} does not: its futures run it on {@code ConcurrencyUtil}'s default async
     * executor, which is the common pool, or, when the common pool's parallelism is 1 (2 cores), a new
     * thread per continuation (and {@code submitToKey}'s future does so even with no continuation). Every
     * continuation run this way is a few field writes; callers' code runs on Sluice's callback executor.
     */
    static final Executor DIRECT = Runnable::run;

    private KeyCalls() {
    }

    /** {@code map.submitToKey(key, processor)}, answered with a {@code type}. */
    static <R> CompletableFuture<R> submitToKey(IMap<String, long[]> map, String key,
                                                EntryProcessor<String, long[], ? extends R> processor, Class<R> type) {
        if (map instanceof MapProxyImpl<String, long[]> member) {
            if (processor instanceof HazelcastInstanceAware aware) {
                // as submitToKey does; a local run uses this very instance, a remote one is re-initialized
                aware.setHazelcastInstance(member.getNodeEngine().getHazelcastInstance());
            }
            SerializationService serialization = member.getNodeEngine().getSerializationService();
            return continued(member.executeOnKeyInternal(key, processor), serialization::toObject, type);
        }
        if (map.getClass() == ClientMapProxy.class) {
            ClientMapProxy<String, long[]> proxy = (ClientMapProxy<String, long[]>) map;
            ClientContext context = proxy.getContext();
            SerializationService serialization = context.getSerializationService();
            Data keyData = serialization.toData(key);
            ClientMessage request = MapSubmitToKeyCodec.encodeRequest(proxy.getName(),
                    serialization.toData(processor), keyData, ThreadUtil.getThreadId());
            int partition = context.getPartitionService().getPartitionId(keyData);
            HazelcastClientInstance client = (HazelcastClientInstance) context.getHazelcastInstance();
            return continued(new ClientInvocation(client, request, proxy.getName(), partition).invoke(),
                    response -> serialization.toObject(MapSubmitToKeyCodec.decodeResponse((ClientMessage) response)),
                    type);
        }
        return continued(map.submitToKey(key, processor), Function.identity(), type);
    }

    private static <R> CompletableFuture<R> continued(CompletionStage<?> invocation, Function<Object, Object> decode,
                                                      Class<R> type) {
        CompletableFuture<R> result = new CompletableFuture<>();
        invocation.whenCompleteAsync((response, failure) -> {
            if (failure != null) {
                result.completeExceptionally(Failures.unwrap(failure));
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
        }, DIRECT);
        return result;
    }
}
