package coordtest

import "github.com/cockroachdb/datadriven"

// handler runs one scenario command: what it returns is printed, an error
// as "error: ...". The records the command appended print after it.
type handler func(s *scenario, d *datadriven.TestData) (string, error)

// commands is the scenario language: one handler per command, each in the
// file of its concern, its doc comment its usage. A new command is a new
// handler and a row here, never a branch in another handler. Read only.
var commands = map[string]handler{
	// The cluster (cmd_cluster.go).
	"coordinator":          (*scenario).coordinator,
	"topics":               (*scenario).topics,
	"topic-racks":          (*scenario).topicRacks,
	"streams-group-config": (*scenario).streamsGroupConfig,
	"advance":              (*scenario).advance,
	"unload":               (*scenario).unload,
	"load":                 (*scenario).load,
	"move":                 (*scenario).move,
	"fail-next-append":     (*scenario).failNextAppend,
	"describe":             (*scenario).describe,
	"groups":               (*scenario).groups,
	"timers":               (*scenario).timers,
	"metrics":              (*scenario).metrics,
	"check-replay":         (*scenario).checkReplay,

	// The group heartbeats (cmd_heartbeats.go).
	"consumer-heartbeat": (*scenario).consumerHeartbeat,
	"share-heartbeat":    (*scenario).shareHeartbeat,
	"streams-heartbeat":  (*scenario).streamsHeartbeat,

	// Offsets and groups (cmd_offsets.go).
	"commit":               (*scenario).commit,
	"txn-commit":           (*scenario).txnCommit,
	"end-txn":              (*scenario).endTxn,
	"fetch":                (*scenario).fetch,
	"delete-offsets":       (*scenario).deleteOffsets,
	"partitions-deleted":   (*scenario).partitionsDeleted,
	"alter-share-offsets":  (*scenario).alterShareOffsets,
	"delete-share-offsets": (*scenario).deleteShareOffsets,
	"delete-groups":        (*scenario).deleteGroups,

	// KIP-1331's topology descriptions (cmd_plugin.go).
	"push":             (*scenario).push,
	"describe-streams": (*scenario).describeStreams,
	"cleanup-cycle":    (*scenario).cleanupCycle,
	"plugin-fail":      (*scenario).pluginFail,
	"executor":         (*scenario).executor,
	"plugin-pending":   (*scenario).pluginPending,
	"plugin-run":       (*scenario).pluginRun,
	"plugin-rows":      (*scenario).pluginRows,
	"backoff":          (*scenario).backoff,

	// The classic protocol (classic.go).
	"join":              (*scenario).join,
	"sync":              (*scenario).sync,
	"classic-heartbeat": (*scenario).classicHeartbeat,
	"classic-encoding":  (*scenario).classicEncoding,
	"leave":             (*scenario).leave,
}
