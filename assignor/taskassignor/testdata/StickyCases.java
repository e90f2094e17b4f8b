// StickyCases runs Kafka's own StickyTaskAssignor over the cases of
// sticky_cases.txt and prints each with Kafka's assignment, producing
// kafka_sticky.txt, the golden file TestSticky_KafkaGolden replays. Run
// (Java 17, the Kafka 4.4.0 jars from ~/.m2):
//
//   M=~/.m2/repository; K=$M/org/apache/kafka
//   CP=$K/kafka-clients/4.4.0/kafka-clients-4.4.0.jar:$K/kafka-group-coordinator/4.4.0/kafka-group-coordinator-4.4.0.jar:$K/kafka-group-coordinator-api/4.4.0/kafka-group-coordinator-api-4.4.0.jar:$M/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar
//   java -cp $CP StickyCases.java < sticky_cases.txt > kafka_sticky.txt
//
// A case is one line: "standbys | sub:tasks:stateful,... | member,process,active,standby ; ..."
// where active and standby are "sub/partition+sub/partition" or "-". The
// members go into the GroupSpec's HashMap in the order given, as
// TargetAssignmentBuilder puts them. The answer line is "=> member:active:standby ; ..."
// by member id, tasks sorted, or "=> error <message>".
import java.io.*;
import java.util.*;
import org.apache.kafka.coordinator.group.api.streams.assignor.*;
import org.apache.kafka.coordinator.group.streams.assignor.*;

public class StickyCases {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank() || line.startsWith("#")) {
                System.out.println(line);
                continue;
            }
            String[] parts = line.split("\\|");
            int standbys = Integer.parseInt(parts[0].trim());
            List<String> subs = new ArrayList<>();
            Map<String, Integer> tasks = new HashMap<>();
            Set<String> stateful = new HashSet<>();
            for (String s : parts[1].trim().split(",")) {
                String[] f = s.split(":");
                subs.add(f[0]);
                tasks.put(f[0], Integer.parseInt(f[1]));
                if (f[2].equals("1")) stateful.add(f[0]);
            }
            Map<String, MemberMetadataAndStateImpl> members = new HashMap<>();
            for (String m : parts[2].trim().split(";")) {
                String[] f = m.trim().split(",");
                members.put(f[0], new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), f[1], Map.of(),
                    parseTasks(f[2]), parseTasks(f[3]), Map.of(), Map.of(), Map.of()));
            }
            TopologyDescriber topo = new TopologyDescriber() {
                public List<String> subtopologies() { return subs; }
                public int maxNumInputPartitions(String id) { return tasks.get(id); }
                public boolean isStateful(String id) { return stateful.contains(id); }
            };
            String out;
            try {
                GroupAssignment a = new StickyTaskAssignor().assign(
                    new GroupSpecImpl(members, new AssignmentConfigsImpl(standbys, List.of())), topo);
                List<String> ids = new ArrayList<>(a.members().keySet());
                Collections.sort(ids);
                StringJoiner j = new StringJoiner(" ; ");
                for (String id : ids) {
                    MemberAssignment ma = a.members().get(id);
                    j.add(id + ":" + format(ma.activeTasks()) + ":" + format(ma.standbyTasks()));
                }
                out = j.toString();
            } catch (Exception e) {
                out = "error " + e.getMessage();
            }
            System.out.println(line + " => " + out);
        }
    }

    static Map<String, Set<Integer>> parseTasks(String s) {
        Map<String, Set<Integer>> out = new HashMap<>();
        if (s.equals("-")) return out;
        for (String t : s.split("\\+")) {
            String[] f = t.split("/");
            out.computeIfAbsent(f[0], k -> new HashSet<>()).add(Integer.parseInt(f[1]));
        }
        return out;
    }

    static String format(Map<String, Set<Integer>> tasks) {
        List<String> subs = new ArrayList<>(tasks.keySet());
        Collections.sort(subs);
        StringJoiner j = new StringJoiner("+");
        for (String s : subs) {
            List<Integer> ps = new ArrayList<>(tasks.get(s));
            Collections.sort(ps);
            for (int p : ps) j.add(s + "/" + p);
        }
        return j.length() == 0 ? "-" : j.toString();
    }
}
