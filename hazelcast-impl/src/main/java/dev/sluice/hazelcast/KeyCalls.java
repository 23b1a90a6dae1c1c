package dev.sluice.hazelcast;

import com.hazelcast.client.impl.clientside.HazelcastClientInstance;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.MapSubmitToKeyCodec;
import com.hazelcast.client.impl.proxy.ClientMapProxy;
import com.hazelcast.client.impl.spi.ClientContext;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.util.ThreadUtil;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
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
 * (a near-cached client proxy, a wrapper) goes through {@code submitToKey} unchanged.
 *
 * <p>The returned future completes on a Hazelcast response or partition thread: continuations must be
 * a few field writes, or hop to another executor.
 */
final class KeyCalls {
    private KeyCalls() {
    }

    static <R> CompletableFuture<R> submitToKey(IMap<String, long[]> map, String key,
                                                EntryProcessor<String, long[], R> processor) {
        if (map instanceof MapProxyImpl<String, long[]> member) {
            if (processor instanceof HazelcastInstanceAware aware) {
                // as submitToKey does; a local run uses this very instance, a remote one is re-initialized
                aware.setHazelcastInstance(member.getNodeEngine().getHazelcastInstance());
            }
            SerializationService serialization = member.getNodeEngine().getSerializationService();
            return continued(member.executeOnKeyInternal(key, processor), serialization::toObject);
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
                    response -> serialization.toObject(MapSubmitToKeyCodec.decodeResponse((ClientMessage) response)));
        }
        return map.submitToKey(key, processor).toCompletableFuture();
    }

    private static <R> CompletableFuture<R> continued(CompletionStage<?> invocation,
                                                      Function<Object, Object> decode) {
        CompletableFuture<R> result = new CompletableFuture<>();
        invocation.whenCompleteAsync((response, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
                return;
            }
            try {
                @SuppressWarnings("unchecked")
                R value = (R) decode.apply(response);
                result.complete(value);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, HazelcastDecisionStore.DIRECT);
        return result;
    }
}
