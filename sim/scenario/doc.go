// Package scenario reads simulation scenarios: YAML files that name a set of
// [sim.Options], with the built-in scenarios embedded in the binary. [Resolve]
// takes what a user names on the command line (a built-in or a file) and
// [Builtins] lists the built-ins for the CLI's `scenarios` command.
//
// What the package must never do: panic or hang on a file's content (every bad
// file gives an [*Error] with the file, line, column and the offending key), or
// hold global mutable state (each call parses afresh). It only reads options;
// it never runs a simulation.
//
// # Schema
//
// A scenario file is one YAML mapping. Every key except name is optional and
// defaults to [sim.DefaultOptions]; unknown keys, duplicate keys and values of
// the wrong type are errors. Durations are Go duration strings ("90s", "10m",
// "48h"; there is no day unit) and a bare 0 means zero. After the keys are
// applied the options must pass [sim.Options.Validate]; a failure is reported
// at the key that caused it. SCHEMA.md holds the same schema with an example.
//
//	name                string    required; [A-Za-z0-9._-], at most 64, starting with a letter or digit
//	description         string    what the scenario is for
//	seed                uint      the PRNG seed (default 1); a sweep overrides it
//	duration            duration  virtual time of the workload phase, in [1m, 366 days] (default 48h)
//	brokers             int       number of brokers, in [1, 64] (default 3)
//	partitions          int       __consumer_offsets partitions, in [1, 1000] (default 50)
//	retention           duration  offsets.retention.minutes, whole minutes, at least 1m (default 1h)
//	check_interval      duration  offsets.retention.check.interval.ms and the cleanup cycle's interval, at least 1s (default 10m)
//	protocol            string    KIP-1331 cleanup protocol: v1, v2 or v3 (default v3)
//	v2_known_holes      bool      under v2, excuse a lost or leaked row only when an event of its group ties it to a hole v2 keeps (default false; the swarm sets it with v2)
//	plugin              bool      configure a topology store (default true)
//	faults              preset or mapping, see below (default the light preset)
//	workload            mapping, see below
//	connect             mapping, see below (default none: no Connect workload)
//	replay_check_every  int       run the replay-equality invariant every N events; 0: only at the end (default 0)
//	required_marks      list      coverage mark names a sweep of this scenario must reach (default none)
//
// faults is either a preset name (none, light or heavy; see [sim.PresetFaults])
// or a mapping whose optional preset key picks the base (default: the default
// options' faults, the light preset) and whose other keys override single
// fields, wherever preset appears in the mapping:
//
//	preset                    none | light | heavy
//	plugin_transient          probability  a plugin call fails with a transient error
//	...                                    one or more keys per fault kind
//
// Each fault kind of the simulator brings its own keys (sim.Params lists
// them, from the kinds' files in package sim): SCHEMA.md's faults table,
// generated from it, gives every key with its type, range, presets and
// swarm draw, and so does `coordsim run -h` (one flag per key). The three
// plugin error probabilities may add up to at most 1; every probability is
// in [0, 1].
//
// workload describes the groups the simulation creates over its duration:
//
//	streams_apps           int          Kafka Streams applications (streams groups), >= 0
//	consumer_groups        int          KIP-848 consumer groups, >= 0
//	share_groups           int          share groups, >= 0
//	simple_groups          int          groups that only commit offsets, >= 0 (at most 2 000 000 groups in all)
//	rolling_upgrade_groups int          classic consumer applications rolled onto the consumer protocol and back, >= 0
//	rolling_upgrade_baseline bool       those applications on the consumer protocol from the start, never rolled (the all-KIP-848 baseline)
//	members_min            int          fewest members of a streams, consumer or share group (>= 1)
//	members_max            int          most members (>= members_min, <= 100)
//	lifetime_min           duration     shortest time a group has members (> 0)
//	lifetime_max           duration     longest time a group has members (>= lifetime_min)
//	arrival_window         number       fraction (0, 1] of duration over which groups are born
//	commit_interval        duration     how often an active member commits, at least 1s
//	topology_upgrade_prob  probability  a streams app upgrades its topology epoch once
//	standby_prob           probability  share of streams apps with streams.num.standby.replicas 1 or 2
//	racks                  int          racks the replicas and clients live on, 0 to 26 (0: no racks)
//	range_prob             probability  share of consumer groups naming the range server assignor
//	admin_interval         duration     how often the admin deletes or describes a group; 0 disables it
//	topics                 mapping      topic name → partitions (1 to 100000); omit for the default topics
//
// connect adds Kafka Connect producers and sink connectors (KIP-1302 share
// sinks and consumer-group sinks) over simulated share partitions; SCHEMA.md
// lists every key of its producers and connectors lists:
//
//	topics                mapping      data topic name → partitions
//	producers             list         topic, rate (records/s), batch_records, start_at, stop_at
//	connectors            list         worker and config (Kafka properties), start_at, scale, kills, reset_offsets, put_* and the rest
//	drain                 duration     how long sinks may run after the workload to catch up (default 1h)
//	record_lock_duration  duration     group.share.record.lock.duration.ms (default 30s)
//	delivery_count_limit  int          group.share.delivery.count.limit, in [2, 10] (default 5)
//	max_record_locks      int          group.share.partition.max.record.locks, in [100, 10000] (default 2000)
//	dlq_write_delay       duration     how long a KIP-1191 dead-letter write takes (at most 1m)
//	connection_idle_timeout  duration  connections.max.idle.ms: a killed task's session closes this long after (default 10m)
//
// # Errors
//
// An [*Error] prints as "file:line:column: key "dotted.key": message", for
// example
//
//	scenarios/foo.yaml:12:3: key "workload.membrs_max": unknown key (did you mean "members_max"?)
//
// Unknown and duplicate keys point at the key; wrong types and bad values
// point at the value; a failed validation points at the value of the key
// involved that the file gives last. YAML syntax errors carry the parser's
// line and no column; problems that belong to no place (an empty file, a file
// too large) are on line 1 without a column.
//
// # Built-in scenarios
//
// The built-ins live in builtin/*.yaml: default (exactly [sim.DefaultOptions]),
// ci (six virtual hours and about 120 groups, the scenario of CI's 500-seed
// sweep), quick (about a virtual day and a few hundred groups), v1-race
// (protocol v1 tuned to make the accepted plugin-side data-loss race likely),
// v2-move-race (deletes held past a shard move while streams instances rejoin:
// the v2 move race, which protocol v3 fences),
// rolling-upgrade (classic consumer applications rolled onto the consumer
// protocol and back: online upgrade and downgrade under faults),
// heavy (the heavy fault preset), no-plugin (streams groups expire through the
// sweep alone, KAFKA-21141) and large (100 000 groups); and the Connect
// scenarios of KIP-1302's test plan: share-sink (every record delivered),
// share-scaling (2 → 4 → 6 tasks, share sink against consumer sink),
// share-kill (a task killed inside put()), share-at-least-once (N produced,
// at least N received), share-mixed-sinks (both sink kinds with other groups),
// share-collision (a colliding group id refused), share-migration (a
// consumer sink handing over to a share sink at its committed offsets),
// share-live-config (group configs changed under running share sinks),
// share-retry-policy (release at once, retry in the task, consumer sink),
// share-rollback (a rollback meeting the leftover share group) and
// share-faults (the invariant-8 sweep).
package scenario
