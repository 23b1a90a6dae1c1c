package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

final class LimiterStatisticsTest {

    @Test
    void recorder_beforeAnyDecision_hasZeroCountsAndNoRemaining() {
        assertEquals(new LimiterStatistics(0, 0, 0, 5, -1), new LimiterStatistics.Recorder().snapshot(5));
    }

    @Test
    void recorder_countsEachResult_andKeepsTheLastKnownRemaining() {
        LimiterStatistics.Recorder recorder = new LimiterStatistics.Recorder();
        recorder.record(DecisionResult.GRANTED, 4);
        recorder.record(DecisionResult.GRANTED, 3);
        recorder.record(DecisionResult.REFUSED, 0);
        recorder.record(DecisionResult.DEGRADED, -1);
        assertEquals(new LimiterStatistics(2, 1, 1, 0, 0), recorder.snapshot(0));
    }
}
