package io.coordsim.oracle;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorService;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;

/**
 * GroupCoordinatorService's request checks, which run before a heartbeat
 * reaches the shard (an empty member id, a join without a rebalance
 * timeout, an unknown assignor...). They are private methods of the
 * service; building a whole service needs a runtime, so the oracle calls
 * Kafka's own methods by reflection on a service object that holds only
 * the one field they read (consumerGroupAssignors). The checks are Kafka's
 * code, not a copy.
 */
final class ServiceChecks {
    private final Object service;
    private final Method consumer;
    private final Method share;
    private final Method streamsFeatures;
    private final Method streams;

    ServiceChecks(GroupCoordinatorConfig config) {
        try {
            Field unsafeField = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            unsafeField.setAccessible(true);
            sun.misc.Unsafe unsafe = (sun.misc.Unsafe) unsafeField.get(null);
            service = unsafe.allocateInstance(GroupCoordinatorService.class);
            Field assignors = GroupCoordinatorService.class.getDeclaredField("consumerGroupAssignors");
            assignors.setAccessible(true);
            Set<String> names = config.consumerGroupAssignors().stream()
                .map(ConsumerGroupPartitionAssignor::name).collect(Collectors.toSet());
            // A final instance field: set through Unsafe, as reflection
            // refuses final fields of records and hidden classes only.
            unsafe.putObject(service, unsafe.objectFieldOffset(assignors), names);
            consumer = GroupCoordinatorService.class.getDeclaredMethod("throwIfConsumerGroupHeartbeatRequestIsInvalid",
                ConsumerGroupHeartbeatRequestData.class, int.class);
            consumer.setAccessible(true);
            share = GroupCoordinatorService.class.getDeclaredMethod("throwIfShareGroupHeartbeatRequestIsInvalid",
                ShareGroupHeartbeatRequestData.class);
            share.setAccessible(true);
            streamsFeatures = GroupCoordinatorService.class.getDeclaredMethod(
                "throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures", StreamsGroupHeartbeatRequestData.class);
            streamsFeatures.setAccessible(true);
            streams = GroupCoordinatorService.class.getDeclaredMethod("throwIfStreamsGroupHeartbeatRequestIsInvalid",
                StreamsGroupHeartbeatRequestData.class);
            streams.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("GroupCoordinatorService's checks moved; update ServiceChecks", e);
        }
    }

    void consumerHeartbeat(ConsumerGroupHeartbeatRequestData req, int version) {
        invoke(consumer, service, req, version);
    }

    void shareHeartbeat(ShareGroupHeartbeatRequestData req) {
        invoke(share, null, req);
    }

    // GroupCoordinatorService.streamsGroupHeartbeat's order: the
    // unsupported features first, then the request's fields.
    void streamsHeartbeat(StreamsGroupHeartbeatRequestData req) {
        invoke(streamsFeatures, null, req);
        invoke(streams, null, req);
    }

    private static void invoke(Method m, Object target, Object... args) {
        try {
            m.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
