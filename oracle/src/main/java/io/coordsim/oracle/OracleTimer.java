package io.coordsim.oracle;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorTimer;

/**
 * A keyed CoordinatorTimer over the oracle's virtual time, with the runtime's
 * semantics that coordsim copies: scheduling a key replaces its timer, a timer
 * is due when its deadline is at or before now, and timers with equal
 * deadlines fire in the order they were scheduled. Nothing fires by itself:
 * the driver asks for the next due timer while it advances time.
 */
final class OracleTimer implements CoordinatorTimer<CoordinatorRecord> {
    /** One scheduled timer. */
    record Entry(String key, long deadlineMs, long seq, TimeoutOperation<CoordinatorRecord> op) {
    }

    private final OracleTime time;
    private final Map<String, Entry> byKey = new HashMap<>();
    // Ordered by (deadline, sequence): the order timers fire in.
    private final TreeMap<long[], Entry> queue = new TreeMap<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    private long seq;

    OracleTimer(OracleTime time) {
        this.time = time;
    }

    @Override
    public void schedule(String key, long delay, TimeUnit unit, boolean retry, TimeoutOperation<CoordinatorRecord> operation) {
        cancel(key);
        Entry e = new Entry(key, time.milliseconds() + unit.toMillis(delay), seq++, operation);
        byKey.put(key, e);
        queue.put(new long[] {e.deadlineMs(), e.seq()}, e);
    }

    @Override
    public void schedule(String key, long delay, TimeUnit unit, boolean retry, long retryBackoff, TimeoutOperation<CoordinatorRecord> operation) {
        schedule(key, delay, unit, retry, operation);
    }

    @Override
    public void scheduleIfAbsent(String key, long delay, TimeUnit unit, boolean retry, TimeoutOperation<CoordinatorRecord> operation) {
        if (!byKey.containsKey(key)) {
            schedule(key, delay, unit, retry, operation);
        }
    }

    @Override
    public void cancel(String key) {
        Entry e = byKey.remove(key);
        if (e != null) {
            queue.remove(new long[] {e.deadlineMs(), e.seq()});
        }
    }

    @Override
    public boolean isScheduled(String key) {
        return byKey.containsKey(key);
    }

    /** Removes and returns the earliest timer due at or before limitMs, or null. */
    Entry pollDue(long limitMs) {
        var first = queue.firstEntry();
        if (first == null || first.getValue().deadlineMs() > limitMs) {
            return null;
        }
        queue.remove(first.getKey());
        byKey.remove(first.getValue().key());
        return first.getValue();
    }

    /** Drops every timer, as an unload does. */
    void clear() {
        byKey.clear();
        queue.clear();
    }
}
