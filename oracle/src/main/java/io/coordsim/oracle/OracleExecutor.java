package io.coordsim.oracle;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

import org.apache.kafka.coordinator.common.runtime.CoordinatorExecutor;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;

/**
 * The CoordinatorExecutor the shard hands background work to (the
 * asynchronous resolution of regular-expression subscriptions). Kafka runs
 * a task on a background thread and its completion as a later write; here
 * pending tasks run, in the order they were scheduled, at the start of the
 * next "advance" operation, so their effect is visible exactly there.
 */
final class OracleExecutor implements CoordinatorExecutor<CoordinatorRecord> {
    private interface Pending {
        CoordinatorResult<Void, CoordinatorRecord> run();
    }

    private final Deque<Pending> pending = new ArrayDeque<>();
    private final Set<String> keys = new HashSet<>();

    @Override
    public <R> boolean schedule(String key, TaskRunnable<R> task, TaskOperation<CoordinatorRecord, R> operation) {
        if (!keys.add(key)) {
            return false;
        }
        pending.add(() -> {
            keys.remove(key);
            R result = null;
            Throwable error = null;
            try {
                result = task.run();
            } catch (Throwable t) {
                error = t;
            }
            return operation.onComplete(result, error);
        });
        return true;
    }

    @Override
    public boolean isScheduled(String key) {
        return keys.contains(key);
    }

    @Override
    public void cancel(String key) {
        // A cancelled task may still be queued; it is dropped when it would run.
        keys.remove(key);
    }

    /** Removes and returns the next pending task's completion, or null. */
    CoordinatorResult<Void, CoordinatorRecord> runNext() {
        Pending p = pending.poll();
        return p == null ? null : p.run();
    }

    boolean hasPending() {
        return !pending.isEmpty();
    }

    void clear() {
        pending.clear();
        keys.clear();
    }
}
