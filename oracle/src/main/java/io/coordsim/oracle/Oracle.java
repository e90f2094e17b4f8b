package io.coordsim.oracle;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.share.persister.InitializeShareGroupStateParameters;
import org.apache.kafka.timeline.SnapshotRegistry;

/**
 * One __consumer_offsets partition of Kafka's group coordinator, driven as
 * the CoordinatorRuntime drives it: a write runs against the latest state
 * with a snapshot taken first (and reverted to if it throws), its records
 * are replayed at once (every write commits), reads see the latest state,
 * timers fire only when time is advanced. Every record is kept in a log so
 * that "reload" rebuilds a fresh shard from it, as a coordinator load does.
 */
final class Oracle {
    private static final TopicPartition TP = new TopicPartition("__consumer_offsets", 0);

    private final OracleTime time = new OracleTime(0);
    private final OracleTimer timer = new OracleTimer(time);
    private final OracleExecutor executor = new OracleExecutor();
    private final GroupCoordinatorConfig config;
    private final ShareGroupConfig shareConfig;
    private final GroupConfigManager groupConfigs;
    private final ServiceChecks checks;
    // One for the process: each shard registers its own metrics shard in it.
    private static final GroupCoordinatorMetrics METRICS = new GroupCoordinatorMetrics();
    private SnapshotRegistry registry;
    private GroupCoordinatorShard shard;
    private MetadataImage image = MetadataImage.EMPTY;
    private final Map<String, Uuid> topicIds = new TreeMap<>();
    private final Map<String, Integer> topicPartitions = new TreeMap<>();
    // Share partitions whose state initialisation Kafka's service would ask
    // the persister for; completed at the next advance.
    private final List<InitializeShareGroupStateParameters> pendingShareInits = new ArrayList<>();

    /** One entry of the replay log: a record or an end-transaction marker. */
    private record LogEntry(long producerId, short producerEpoch, CoordinatorRecord record, TransactionResult marker) {
    }

    private final List<LogEntry> log = new ArrayList<>();
    private long lastOffset;

    /** A classic JoinGroup or SyncGroup whose answer has not come yet. */
    private record Parked(CompletableFuture<?> future, short version) {
    }

    // Classic requests by their number ("req" of the op line): the shard
    // parks a JoinGroup or SyncGroup on the future it is given and
    // completes it at a later operation or timer (the delayed join), or at
    // unload with NOT_COORDINATOR. Every answer reports the ones completed.
    private final TreeMap<Integer, Parked> parked = new TreeMap<>();

    Oracle(Map<String, Object> props) {
        this.config = GroupCoordinatorConfig.fromProps(props);
        this.shareConfig = ShareGroupConfig.fromProps(props);
        this.groupConfigs = new GroupConfigManager(config, shareConfig);
        this.checks = new ServiceChecks(config);
        OracleUuids.reseed();
        build();
        shard.onLoaded(new KRaftCoordinatorMetadataImage(image));
    }

    private void build() {
        registry = new SnapshotRegistry(new LogContext());
        GroupCoordinatorShard.Builder b = new GroupCoordinatorShard.Builder(config, groupConfigs);
        b.withAuthorizerPlugin(java.util.Optional.empty());
        shard = b.withLogContext(new LogContext())
            .withSnapshotRegistry(registry)
            .withTime(time)
            .withTimer(timer)
            .withExecutor(executor)
            .withCoordinatorMetrics(METRICS)
            .withTopicPartition(TP)
            .build();
    }

    /** Runs one operation and returns its answer line. */
    ObjectNode apply(JsonNode op) {
        String name = text(op, "op");
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("op", name);
        List<CoordinatorRecord> records = new ArrayList<>();
        try {
            JsonNode resp = switch (name) {
                case "topics" -> topics(op, records);
                case "consumer_heartbeat" -> consumerHeartbeat(op, records);
                case "share_heartbeat" -> shareHeartbeat(op, records);
                case "streams_heartbeat" -> streamsHeartbeat(op, records);
                case "offset_commit" -> KafkaApis.offsetCommit(Json.read(OffsetCommitRequestData.class, op.get("request"), version(op)),
                    topicPartitions, req -> write(records, () -> shard.commitOffset(ctx(op, ApiKeys.OFFSET_COMMIT), req), version(op)), version(op));
                case "txn_offset_commit" -> txnCommit(op, records);
                case "end_txn" -> endTxn(op);
                // GroupCoordinatorService reads at the latest offset (a
                // write operation) under requireStable, else at the last
                // committed one; fetchOffsets tells the two apart by that.
                case "offset_fetch" -> read(() -> shard.fetchOffsets(
                    Json.read(OffsetFetchRequestData.OffsetFetchRequestGroup.class, op.get("request"), version(op)),
                    op.path("requireStable").asBoolean() ? Long.MAX_VALUE : committed()), version(op));
                case "offset_delete" -> KafkaApis.offsetDelete(Json.read(OffsetDeleteRequestData.class, op.get("request"), version(op)),
                    topicPartitions, req -> write(records, () -> shard.deleteOffsets(ctx(op, ApiKeys.OFFSET_DELETE), req), version(op)), version(op));
                case "delete_groups" -> write(records, () -> shard.deleteGroups(ctx(op, ApiKeys.DELETE_GROUPS), strings(op.get("groups"))), (short) 0);
                case "list_groups" -> listOf(shard.listGroups(strings(op.get("states")), strings(op.get("types")), committed()), (short) 5);
                case "consumer_describe" -> listOf(shard.consumerGroupDescribe(strings(op.get("groups")), committed()), (short) 1);
                case "share_describe" -> listOf(shard.shareGroupDescribe(strings(op.get("groups")), committed()), (short) 1);
                case "streams_describe" -> listOf(shard.streamsGroupDescribe(strings(op.get("groups")), committed()).describedGroups(), (short) 0);
                case "advance" -> advance(op.get("ms").asLong(), records);
                case "reload" -> reload();
                case "group_config" -> groupConfig(op);
                case "classic_join" -> classicJoin(op, records);
                case "classic_sync" -> classicSync(op, records);
                case "classic_heartbeat" -> classicHeartbeat(op, records);
                case "classic_leave" -> classicLeave(op, records);
                case "classic_describe" -> listOf(shard.describeGroups(ctx(op, ApiKeys.DESCRIBE_GROUPS), strings(op.get("groups")), committed()), version(op));
                default -> throw new Json.BadOperation("unknown op " + name);
            };
            out.set("response", resp);
        } catch (ApiException e) {
            ObjectNode ex = out.putObject("exception");
            ApiError err = ApiError.fromThrowable(e);
            ex.put("code", err.error().code());
            ex.put("name", err.error().name());
            ex.put("message", err.message());
        } catch (ConfigException e) {
            // A value ConfigDef cannot parse: INVALID_CONFIG with its
            // message, as the controller answers it.
            ObjectNode ex = out.putObject("exception");
            ex.put("code", Errors.INVALID_CONFIG.code());
            ex.put("name", Errors.INVALID_CONFIG.name());
            ex.put("message", e.getMessage());
        }
        out.put("nowMs", time.milliseconds());
        out.set("records", Json.records(records));
        ArrayNode completed = completed();
        if (!completed.isEmpty()) {
            out.set("completed", completed);
        }
        return out;
    }

    // The parked classic requests this operation answered, by number.
    private ArrayNode completed() {
        ArrayNode a = Json.MAPPER.createArrayNode();
        for (var it = parked.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            // Read the entry before it.remove(): TreeMap deletes a node
            // with two children by moving its successor's key and value
            // into it, so e would then name the next parked request (the
            // oracle once reported a JoinGroup under a later number).
            int req = e.getKey();
            Parked p = e.getValue();
            // getNow, never join: the oracle must not wait on a future
            // only a later operation can complete.
            Object resp = p.future().getNow(null);
            if (resp == null) {
                continue;
            }
            it.remove();
            ObjectNode c = a.addObject();
            c.put("req", req);
            c.set("response", Json.write(resp, p.version()));
        }
        return a;
    }

    // A classic request's own answer: the response if its future is done,
    // else {"pending": true} and the future is parked under the request's
    // number until an operation or timer completes it.
    private JsonNode answer(JsonNode op, CompletableFuture<?> f) {
        Object resp = f.getNow(null);
        if (resp != null) {
            return Json.write(resp, version(op));
        }
        parked.put(op.get("req").asInt(), new Parked(f, version(op)));
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("pending", true);
        return n;
    }

    // GroupCoordinatorService.joinGroup: the group id and session timeout
    // checks, then the shard's classicGroupJoin with the future the answer
    // comes through. The last argument is the service's
    // !isPluginConfigured (no topology description plugin here): the
    // KIP-1331 cleanup of an empty streams group is not needed first. An
    // exception is answered in the future with the request's member id
    // (the service's exceptionally).
    private JsonNode classicJoin(JsonNode op, List<CoordinatorRecord> out) {
        JoinGroupRequestData req = Json.read(JoinGroupRequestData.class, op.get("request"), version(op));
        CompletableFuture<JoinGroupResponseData> f = new CompletableFuture<>();
        if (req.groupId() == null || req.groupId().isEmpty()) {
            f.complete(new JoinGroupResponseData().setMemberId(req.memberId()).setErrorCode(Errors.INVALID_GROUP_ID.code()));
        } else if (req.sessionTimeoutMs() < config.classicGroupMinSessionTimeoutMs() || req.sessionTimeoutMs() > config.classicGroupMaxSessionTimeoutMs()) {
            f.complete(new JoinGroupResponseData().setMemberId(req.memberId()).setErrorCode(Errors.INVALID_SESSION_TIMEOUT.code()));
        } else {
            try {
                run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
                    () -> shard.classicGroupJoin(ctx(op, ApiKeys.JOIN_GROUP), req, f, true));
            } catch (ApiException e) {
                f.complete(new JoinGroupResponseData().setMemberId(req.memberId()).setErrorCode(Errors.forException(e).code()));
            }
        }
        return answer(op, f);
    }

    private JsonNode classicSync(JsonNode op, List<CoordinatorRecord> out) {
        SyncGroupRequestData req = Json.read(SyncGroupRequestData.class, op.get("request"), version(op));
        CompletableFuture<SyncGroupResponseData> f = new CompletableFuture<>();
        if (req.groupId() == null || req.groupId().isEmpty()) {
            f.complete(new SyncGroupResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
        } else {
            try {
                run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
                    () -> shard.classicGroupSync(ctx(op, ApiKeys.SYNC_GROUP), req, f));
            } catch (ApiException e) {
                f.complete(new SyncGroupResponseData().setErrorCode(Errors.forException(e).code()));
            }
        }
        return answer(op, f);
    }

    // Heartbeat and LeaveGroup answer at once; the service turns an
    // exception into the answer's error code.
    private JsonNode classicHeartbeat(JsonNode op, List<CoordinatorRecord> out) {
        HeartbeatRequestData req = Json.read(HeartbeatRequestData.class, op.get("request"), version(op));
        if (req.groupId() == null || req.groupId().isEmpty()) {
            return Json.write(new HeartbeatResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()), version(op));
        }
        try {
            return write(out, () -> shard.classicGroupHeartbeat(ctx(op, ApiKeys.HEARTBEAT), req), version(op));
        } catch (ApiException e) {
            return Json.write(new HeartbeatResponseData().setErrorCode(Errors.forException(e).code()), version(op));
        }
    }

    private JsonNode classicLeave(JsonNode op, List<CoordinatorRecord> out) {
        LeaveGroupRequestData req = Json.read(LeaveGroupRequestData.class, op.get("request"), version(op));
        if (req.groupId() == null || req.groupId().isEmpty()) {
            return Json.write(new LeaveGroupResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()), version(op));
        }
        try {
            return write(out, () -> shard.classicGroupLeave(ctx(op, ApiKeys.LEAVE_GROUP), req), version(op));
        } catch (ApiException e) {
            return Json.write(new LeaveGroupResponseData().setErrorCode(Errors.forException(e).code()), version(op));
        }
    }

    private static short version(JsonNode op) {
        // Ops without a request message (DeleteGroups) name no version.
        return (short) op.path("version").asInt(0);
    }

    private static String text(JsonNode op, String field) {
        JsonNode n = op.get(field);
        if (n == null || !n.isTextual()) {
            throw new Json.BadOperation("missing " + field);
        }
        return n.asText();
    }

    private static List<String> strings(JsonNode n) {
        List<String> out = new ArrayList<>();
        if (n != null) {
            n.forEach(e -> out.add(e.asText()));
        }
        return out;
    }

    private static ArrayNode listOf(List<?> messages, short version) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        for (Object m : messages) {
            a.add(Json.write(m, version));
        }
        return a;
    }

    // A write: snapshot, run, replay its records. An operation that throws
    // keeps whatever it changed in memory before throwing, and so do the
    // writes before it that wrote no record: CoordinatorRuntime's
    // CoordinatorWriteEvent completes the request exceptionally and reverts
    // nothing (it reverts the timeline only when an append fails).
    private <T> T run(List<CoordinatorRecord> out, long producerId, short producerEpoch, Supplier<CoordinatorResult<T, CoordinatorRecord>> op) {
        registry.idempotentCreateSnapshot(lastOffset);
        CoordinatorResult<T, CoordinatorRecord> res = op.get();
        for (CoordinatorRecord r : res.records()) {
            if (res.replayRecords()) {
                append(producerId, producerEpoch, r);
            } else {
                // Written but not replayed: the operation already applied
                // it (a new classic group's empty GroupMetadata commits the
                // group created in memory). The runtime still appends it,
                // so reads see it once committed, and a reload replays it.
                log.add(new LogEntry(producerId, producerEpoch, r, null));
                lastOffset++;
            }
        }
        out.addAll(res.records());
        registry.deleteSnapshotsUpTo(lastOffset);
        // The runtime completes a write's append future once its records
        // are committed (here: at once); classic operations park work on it
        // (a SyncGroup's assignment propagation, a classic member's join of
        // a consumer group).
        if (res.appendFuture() != null) {
            res.appendFuture().complete(null);
        }
        return res.response();
    }

    private void append(long producerId, short producerEpoch, CoordinatorRecord r) {
        shard.replay(lastOffset, producerId, producerEpoch, r);
        log.add(new LogEntry(producerId, producerEpoch, r, null));
        lastOffset++;
    }

    private <T> JsonNode write(List<CoordinatorRecord> out, Supplier<CoordinatorResult<T, CoordinatorRecord>> op, short version) {
        T resp = run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, op);
        return resp == null ? null : resp instanceof Iterable<?> it ? iterable(it, version) : Json.write(resp, version);
    }

    private static JsonNode iterable(Iterable<?> it, short version) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        for (Object m : it) {
            a.add(Json.write(m, version));
        }
        return a;
    }

    private static JsonNode read(Supplier<Object> op, short version) {
        return Json.write(op.get(), version);
    }

    private JsonNode consumerHeartbeat(JsonNode op, List<CoordinatorRecord> out) {
        ConsumerGroupHeartbeatRequestData req = Json.read(ConsumerGroupHeartbeatRequestData.class, op.get("request"), version(op));
        checks.consumerHeartbeat(req, version(op));
        return write(out, () -> shard.consumerGroupHeartbeat(ctx(op, ApiKeys.CONSUMER_GROUP_HEARTBEAT), req), version(op));
    }

    private JsonNode shareHeartbeat(JsonNode op, List<CoordinatorRecord> out) {
        ShareGroupHeartbeatRequestData req = Json.read(ShareGroupHeartbeatRequestData.class, op.get("request"), version(op));
        checks.shareHeartbeat(req);
        var entry = run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, () -> shard.shareGroupHeartbeat(
            ctx(op, ApiKeys.SHARE_GROUP_HEARTBEAT), req));
        entry.getValue().ifPresent(pendingShareInits::add);
        return Json.write(entry.getKey(), version(op));
    }

    private JsonNode streamsHeartbeat(JsonNode op, List<CoordinatorRecord> out) {
        StreamsGroupHeartbeatRequestData req = Json.read(StreamsGroupHeartbeatRequestData.class, op.get("request"), version(op));
        checks.streamsHeartbeat(req);
        var result = run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, () -> shard.streamsGroupHeartbeat(
            ctx(op, ApiKeys.STREAMS_GROUP_HEARTBEAT), req));
        ObjectNode n = (ObjectNode) Json.write(result.data(), version(op));
        // The internal topics the broker would ask the controller to
        // create after the heartbeat (KafkaApis does it, not the shard).
        ArrayNode creatable = n.putArray("oracleCreatableTopics");
        new TreeMap<>(result.creatableTopics()).forEach((name, t) ->
            creatable.addObject().put("name", name).put("partitions", t.numPartitions()));
        return n;
    }

    private JsonNode txnCommit(JsonNode op, List<CoordinatorRecord> out) {
        return KafkaApis.txnOffsetCommit(Json.read(TxnOffsetCommitRequestData.class, op.get("request"), version(op)), topicPartitions,
            req -> Json.write(run(out, req.producerId(), req.producerEpoch(),
                () -> shard.commitTransactionalOffset(ctx(op, ApiKeys.TXN_OFFSET_COMMIT), req)), version(op)), version(op));
    }

    // Reads see the last committed offset, as the runtime's reads do; every
    // write here commits at once, so that is the last written one.
    private long committed() {
        registry.idempotentCreateSnapshot(lastOffset);
        return lastOffset;
    }

    private JsonNode endTxn(JsonNode op) {
        long producerId = op.get("producerId").asLong();
        short producerEpoch = (short) op.get("producerEpoch").asInt();
        TransactionResult result = op.get("commit").asBoolean() ? TransactionResult.COMMIT : TransactionResult.ABORT;
        registry.idempotentCreateSnapshot(lastOffset);
        shard.replayEndTransactionMarker(producerId, producerEpoch, result);
        log.add(new LogEntry(producerId, producerEpoch, null, result));
        lastOffset++;
        registry.deleteSnapshotsUpTo(lastOffset);
        return null;
    }

    // Advances time by ms: pending background work (regex resolution, share
    // state initialisation) completes first, then every timer due by the
    // target fires in deadline order, each at its own deadline.
    private JsonNode advance(long ms, List<CoordinatorRecord> out) {
        if (ms < 0) {
            throw new Json.BadOperation("negative advance");
        }
        ArrayNode fired = Json.MAPPER.createArrayNode();
        runBackground(out, fired);
        long target = time.milliseconds() + ms;
        for (OracleTimer.Entry e; (e = timer.pollDue(target)) != null; ) {
            time.set(Math.max(time.milliseconds(), e.deadlineMs()));
            fired.add(e.key());
            OracleTimer.Entry fire = e;
            try {
                run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, () -> fire.op().generateRecords());
            } catch (RuntimeException ex) {
                // The runtime logs a failed timer operation and goes on.
                System.err.println("oracle: timer " + e.key() + " failed: " + ex);
            }
        }
        time.set(target);
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.set("fired", fired);
        return n;
    }

    private void runBackground(List<CoordinatorRecord> out, ArrayNode fired) {
        while (executor.hasPending()) {
            fired.add("executor");
            try {
                run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, executor::runNext);
            } catch (RuntimeException ex) {
                System.err.println("oracle: executor task failed: " + ex);
            }
        }
        List<InitializeShareGroupStateParameters> inits = new ArrayList<>(pendingShareInits);
        pendingShareInits.clear();
        for (InitializeShareGroupStateParameters p : inits) {
            fired.add("share-initialize");
            Map<Uuid, Set<Integer>> parts = new LinkedHashMap<>();
            p.groupTopicPartitionData().topicsData().forEach(t -> {
                Set<Integer> s = new HashSet<>();
                t.partitions().forEach(pd -> s.add(pd.partition()));
                parts.put(t.topicId(), s);
            });
            try {
                run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
                    () -> shard.initializeShareGroupState(p.groupTopicPartitionData().groupId(), parts));
            } catch (RuntimeException ex) {
                System.err.println("oracle: share initialisation failed: " + ex);
            }
        }
    }

    // Replaces the topic image with the one given: new topics are created,
    // grown ones get partitions, missing ones are deleted (and the shard is
    // told, as GroupCoordinatorService.onMetadataUpdate does).
    private JsonNode topics(JsonNode op, List<CoordinatorRecord> out) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(image).build();
        Map<String, Integer> want = new TreeMap<>();
        Map<String, Uuid> ids = new HashMap<>();
        for (JsonNode t : op.get("topics")) {
            want.put(t.get("name").asText(), t.get("partitions").asInt());
            ids.put(t.get("name").asText(), Uuid.fromString(t.get("id").asText()));
        }
        List<GroupCoordinatorShard.DeletedTopic> deleted = new ArrayList<>();
        for (String name : new ArrayList<>(topicPartitions.keySet())) {
            if (!want.containsKey(name)) {
                delta.replay(new RemoveTopicRecord().setTopicId(topicIds.get(name)));
                deleted.add(new GroupCoordinatorShard.DeletedTopic(topicIds.get(name), name));
                topicIds.remove(name);
                topicPartitions.remove(name);
            }
        }
        for (var e : want.entrySet()) {
            String name = e.getKey();
            int from = topicPartitions.getOrDefault(name, 0);
            if (from == 0) {
                delta.replay(new TopicRecord().setName(name).setTopicId(ids.get(name)));
                topicIds.put(name, ids.get(name));
            }
            for (int p = from; p < e.getValue(); p++) {
                delta.replay(new PartitionRecord().setPartitionId(p).setTopicId(topicIds.get(name))
                    .setReplicas(List.of(0)).setIsr(List.of(0)).setLeader(0).setLeaderEpoch(0).setPartitionEpoch(0)
                    .setDirectories(List.of(Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"))));
            }
            topicPartitions.put(name, Math.max(from, e.getValue()));
        }
        image = delta.apply(new MetadataProvenance(image.provenance().lastContainedOffset() + 1, 0, 0, true));
        shard.onMetadataUpdate(new KRaftCoordinatorMetadataDelta(delta), new KRaftCoordinatorMetadataImage(image));
        if (!deleted.isEmpty()) {
            run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, () -> shard.onTopicsDeleted(deleted));
            // GroupCoordinatorService.onMetadataUpdate's second write.
            Set<Uuid> deletedIds = new HashSet<>();
            deleted.forEach(t -> deletedIds.add(t.id()));
            run(out, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, () -> shard.maybeCleanupShareGroupState(deletedIds));
        }
        return null;
    }

    // A coordinator move: drop the shard and its timers, build a fresh one
    // and replay the log into it, then onLoaded.
    /**
     * Replaces a group's dynamic group config, as an IncrementalAlterConfigs
     * on the GROUP resource does once the controller validated it
     * (GroupConfig.validate) and the broker's GroupConfigManager took it.
     * Group configs are cluster metadata: a reload keeps them.
     */
    private JsonNode groupConfig(JsonNode op) {
        Map<String, String> props = new TreeMap<>();
        op.path("props").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        GroupConfig.validate(props, config, shareConfig);
        Properties p = new Properties();
        p.putAll(props);
        groupConfigs.updateGroupConfig(text(op, "groupId"), p);
        return Json.MAPPER.createObjectNode();
    }

    private JsonNode reload() {
        shard.onUnloaded();
        timer.clear();
        executor.clear();
        pendingShareInits.clear();
        build();
        long offset = 0;
        for (LogEntry e : log) {
            if (e.marker() != null) {
                shard.replayEndTransactionMarker(e.producerId(), e.producerEpoch(), e.marker());
            } else {
                shard.replay(offset, e.producerId(), e.producerEpoch(), e.record());
            }
            offset++;
        }
        shard.onMetadataUpdate(new KRaftCoordinatorMetadataDelta(new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build()),
            new KRaftCoordinatorMetadataImage(image));
        shard.onLoaded(new KRaftCoordinatorMetadataImage(image));
        return null;
    }

    private static AuthorizableRequestContext ctx(JsonNode op, ApiKeys key) {
        JsonNode c = op.get("clientId");
        String clientId = c == null ? "" : c.asText();
        int version = version(op);
        return new AuthorizableRequestContext() {
            @Override
            public String listenerName() {
                return ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT).value();
            }

            @Override
            public SecurityProtocol securityProtocol() {
                return SecurityProtocol.PLAINTEXT;
            }

            @Override
            public KafkaPrincipal principal() {
                return KafkaPrincipal.ANONYMOUS;
            }

            @Override
            public InetAddress clientAddress() {
                return InetAddress.getLoopbackAddress();
            }

            @Override
            public int requestType() {
                return key.id;
            }

            @Override
            public int requestVersion() {
                return version;
            }

            @Override
            public String clientId() {
                return clientId;
            }

            @Override
            public int correlationId() {
                return 0;
            }
        };
    }

    static Map<String, Object> defaultProps() {
        return Collections.emptyMap();
    }

    static Errors unused() {
        return Errors.NONE;
    }
}
