package io.coordsim.oracle;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads JSON-lines operations on stdin and writes one JSON line per
 * operation on stdout (see oracle/README.md for the protocol). The first
 * line may be {"op":"config","props":{...}} with broker properties; a line
 * {"op":"reset"} starts a new shard, so one process serves many sequences.
 * An operation the oracle cannot run answers {"bad": message}; the process
 * never exits on bad input.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        Map<String, Object> props = new HashMap<>();
        Oracle oracle = null;
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            ObjectNode answer;
            try {
                JsonNode op = Json.MAPPER.readTree(line);
                String name = op.path("op").asText();
                if (name.equals("config")) {
                    props = new HashMap<>();
                    Map<String, Object> p = props;
                    op.path("props").fields().forEachRemaining(e -> p.put(e.getKey(), e.getValue().asText()));
                    oracle = null;
                    answer = Json.MAPPER.createObjectNode().put("op", name);
                } else if (name.equals("reset")) {
                    oracle = new Oracle(props);
                    answer = Json.MAPPER.createObjectNode().put("op", name);
                } else {
                    if (oracle == null) {
                        oracle = new Oracle(props);
                    }
                    answer = oracle.apply(op);
                }
            } catch (Json.BadOperation | com.fasterxml.jackson.core.JsonProcessingException e) {
                answer = Json.MAPPER.createObjectNode().put("bad", e.getMessage());
            } catch (RuntimeException e) {
                // Kafka threw something that is not an ApiException (an
                // IllegalStateException, a bug): report it, keep serving.
                answer = Json.MAPPER.createObjectNode().put("crash", e.toString());
                e.printStackTrace();
            }
            out.write(Json.MAPPER.writeValueAsString(answer));
            out.write('\n');
            out.flush();
        }
    }
}
