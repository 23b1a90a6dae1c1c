package dev.sluice.limiter.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

final class RequestCodecTest {
    private static final LimitSpec COMPOSITE = LimitSpec.allOf(LimitSpec.fixedWindow(10, Duration.ofSeconds(1)),
            LimitSpec.tokenBucket(1_000, 10, Duration.ofMinutes(1)), LimitSpec.gcra(5, Duration.ofSeconds(2), 3));

    @Test
    void encode_everySpecAndAComposite_roundTripsInABatch() {
        List<LimitSpec> specs = new ArrayList<>(Arrays.asList(StepHarness.oneOfEach()));
        specs.add(COMPOSITE);
        List<long[]> requests = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            requests.add(RequestCodec.encode(specs.get(i), i % 2 == 0 ? Op.ACQUIRE : Op.ACQUIRE, i, 100 + i));
        }
        long[] batch = RequestCodec.concat(requests);
        assertEquals(specs.size(), RequestCodec.count(batch));
        int at = 0;
        for (int i = 0; i < specs.size(); i++) {
            assertEquals(specs.get(i), RequestCodec.specAt(batch, at));
            assertEquals(i, RequestCodec.permitsAt(batch, at));
            assertEquals(100 + i, RequestCodec.leaseIdAt(batch, at));
            assertEquals(Op.ACQUIRE, RequestCodec.opAt(batch, at));
            at = RequestCodec.next(batch, at);
        }
        assertEquals(batch.length, at);
    }

    @Test
    void decode_malformedWords_throwNamingTheProblem() {
        long[] composite = RequestCodec.encode(COMPOSITE, Op.ACQUIRE, 1, 0);
        long[] cut = Arrays.copyOf(composite, composite.length - 1);
        assertThrows(IllegalArgumentException.class, () -> RequestCodec.count(cut));
        long[] tooMany = composite.clone();
        tooMany[RequestCodec.FIXED_WORDS + 1] = 9;
        assertThrows(IllegalArgumentException.class, () -> RequestCodec.count(tooMany));
        assertThrows(IllegalArgumentException.class, () -> RequestCodec.count(new long[0]));
        long[] unknown = RequestCodec.encode(LimitSpec.fixedWindow(1, Duration.ofSeconds(1)), Op.ACQUIRE, 1, 0);
        unknown[RequestCodec.FIXED_WORDS] = 99;
        assertThrows(IllegalArgumentException.class, () -> RequestCodec.specAt(unknown, 0));
    }
}
