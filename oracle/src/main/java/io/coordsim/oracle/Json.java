package io.coordsim.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;

/**
 * Kafka messages to and from JSON with Kafka's own generated JsonConverter
 * classes (field names as in the message schemas, camelCase), found by name
 * so one helper serves every request, response and record type.
 */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    /** The message's JSON at version. */
    static JsonNode write(Object message, short version) {
        try {
            Class<?> c = message.getClass();
            Class<?> conv = converterOf(c);
            return (JsonNode) conv.getMethod("write", c, short.class).invoke(null, message, version);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no JSON converter for " + message.getClass(), e);
        }
    }

    /** Reads a message of class c from its JSON at version. */
    @SuppressWarnings("unchecked")
    static <T> T read(Class<T> c, JsonNode node, short version) {
        try {
            Class<?> conv = converterOf(c);
            return (T) conv.getMethod("read", JsonNode.class, short.class).invoke(null, node, version);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new BadOperation(c.getSimpleName() + ": " + e.getCause().getMessage());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no JSON converter for " + c, e);
        }
    }

    // A top-level message Foo has FooJsonConverter; a nested one Foo.Bar has
    // FooJsonConverter.BarJsonConverter.
    private static Class<?> converterOf(Class<?> c) throws ClassNotFoundException {
        Class<?> outer = c.getEnclosingClass();
        if (outer == null) {
            return Class.forName(c.getName() + "JsonConverter");
        }
        return Class.forName(outer.getName() + "JsonConverter$" + c.getSimpleName() + "JsonConverter");
    }

    /** A record as {"type", "key", "value"}; value is null for a tombstone. */
    static ObjectNode record(CoordinatorRecord r) {
        ObjectNode out = MAPPER.createObjectNode();
        ApiMessage key = r.key();
        String name = key.getClass().getSimpleName();
        out.put("type", name.endsWith("Key") ? name.substring(0, name.length() - 3) : name);
        out.set("key", write(key, (short) 0));
        if (r.value() == null) {
            out.putNull("value");
        } else {
            out.set("value", write(r.value().message(), r.value().version()));
        }
        return out;
    }

    static ArrayNode records(Iterable<CoordinatorRecord> records) {
        ArrayNode a = MAPPER.createArrayNode();
        for (CoordinatorRecord r : records) {
            a.add(record(r));
        }
        return a;
    }

    /** An operation the oracle cannot run: malformed input, not Kafka's answer. */
    static final class BadOperation extends RuntimeException {
        BadOperation(String message) {
            super(message);
        }
    }
}
