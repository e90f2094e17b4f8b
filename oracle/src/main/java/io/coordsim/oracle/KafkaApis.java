package io.coordsim.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The part of KafkaApis that runs before an offset request reaches the
 * group coordinator: a partition the metadata image does not hold is
 * answered UNKNOWN_TOPIC_OR_PARTITION and removed from the request
 * (handleOffsetCommitRequest, handleTxnOffsetCommitRequest,
 * handleOffsetDeleteRequest). A commit with no partition left never reaches
 * the coordinator; an OffsetDelete always does. coordsim's shard models the
 * same check, so the oracle must too.
 */
final class KafkaApis {
    private KafkaApis() {
    }

    private static boolean exists(Map<String, Integer> topics, String name, int partition) {
        Integer n = topics.get(name);
        return n != null && partition >= 0 && partition < n;
    }

    static JsonNode offsetCommit(OffsetCommitRequestData req, Map<String, Integer> topics,
                                 Function<OffsetCommitRequestData, JsonNode> coordinator, short version) {
        OffsetCommitResponseData unknown = new OffsetCommitResponseData();
        List<OffsetCommitRequestData.OffsetCommitRequestTopic> known = new ArrayList<>();
        for (var t : req.topics()) {
            var keep = new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(t.name()).setTopicId(t.topicId());
            OffsetCommitResponseData.OffsetCommitResponseTopic bad = null;
            for (var p : t.partitions()) {
                if (exists(topics, t.name(), p.partitionIndex())) {
                    keep.partitions().add(p);
                } else {
                    if (bad == null) {
                        bad = new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name()).setTopicId(t.topicId());
                        unknown.topics().add(bad);
                    }
                    bad.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                }
            }
            if (!keep.partitions().isEmpty()) {
                known.add(keep);
            }
        }
        ObjectNode answer = (ObjectNode) Json.write(unknown, version);
        if (known.isEmpty()) {
            return answer;
        }
        req.setTopics(known);
        return merge(answer, coordinator.apply(req));
    }

    static JsonNode txnOffsetCommit(TxnOffsetCommitRequestData req, Map<String, Integer> topics,
                                    Function<TxnOffsetCommitRequestData, JsonNode> coordinator, short version) {
        TxnOffsetCommitResponseData unknown = new TxnOffsetCommitResponseData();
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> known = new ArrayList<>();
        for (var t : req.topics()) {
            var keep = new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(t.name());
            TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic bad = null;
            for (var p : t.partitions()) {
                if (exists(topics, t.name(), p.partitionIndex())) {
                    keep.partitions().add(p);
                } else {
                    if (bad == null) {
                        bad = new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(t.name());
                        unknown.topics().add(bad);
                    }
                    bad.partitions().add(new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                }
            }
            if (!keep.partitions().isEmpty()) {
                known.add(keep);
            }
        }
        ObjectNode answer = (ObjectNode) Json.write(unknown, version);
        if (known.isEmpty()) {
            return answer;
        }
        req.setTopics(known);
        return merge(answer, coordinator.apply(req));
    }

    static JsonNode offsetDelete(OffsetDeleteRequestData req, Map<String, Integer> topics,
                                 Function<OffsetDeleteRequestData, JsonNode> coordinator, short version) {
        OffsetDeleteResponseData unknown = new OffsetDeleteResponseData();
        var known = new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        for (var t : req.topics()) {
            var keep = new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(t.name());
            OffsetDeleteResponseData.OffsetDeleteResponseTopic bad = null;
            for (var p : t.partitions()) {
                if (exists(topics, t.name(), p.partitionIndex())) {
                    keep.partitions().add(p.duplicate());
                } else {
                    if (bad == null) {
                        bad = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name());
                        unknown.topics().add(bad);
                    }
                    bad.partitions().add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                }
            }
            if (!keep.partitions().isEmpty() && known.find(t.name()) == null) {
                known.add(keep);
            }
        }
        req.setTopics(known);
        return merge((ObjectNode) Json.write(unknown, version), coordinator.apply(req));
    }

    // Appends the coordinator's topics to the answers so far; the
    // coordinator's other fields (errorCode) win.
    private static JsonNode merge(ObjectNode unknown, JsonNode fromCoordinator) {
        ObjectNode out = ((ObjectNode) fromCoordinator).deepCopy();
        ArrayNode topics = Json.MAPPER.createArrayNode();
        unknown.withArray("topics").forEach(topics::add);
        fromCoordinator.withArray("topics").forEach(topics::add);
        out.set("topics", topics);
        return out;
    }
}
