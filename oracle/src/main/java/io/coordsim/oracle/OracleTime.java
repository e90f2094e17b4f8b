package io.coordsim.oracle;

import org.apache.kafka.common.utils.Time;

/**
 * Virtual time: it moves only when the driver advances it, so the same
 * operations give the same answers on every run.
 */
final class OracleTime implements Time {
    private long nowMs;

    OracleTime(long startMs) {
        this.nowMs = startMs;
    }

    void set(long ms) {
        nowMs = ms;
    }

    @Override
    public long milliseconds() {
        return nowMs;
    }

    @Override
    public long nanoseconds() {
        return nowMs * 1_000_000L;
    }

    @Override
    public void sleep(long ms) {
        nowMs += ms;
    }
}
