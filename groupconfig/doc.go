// Package groupconfig is the one home of Kafka's group config rules
// (GroupConfig, KIP-848/932/1071): the keys and their types, ConfigDef's
// parse and atLeast checks, validateValues' broker ranges and the
// session-above-heartbeat rule, with Kafka's messages, and the parsing of
// share.auto.offset.reset and its ISO-8601 durations.
//
// wire (IncrementalAlterConfigs and DescribeConfigs on GROUP resources),
// coordinator (SetGroupConfig) and connect (a share sink's group configs)
// all call it, so a fix here reaches all three.
//
// It is a leaf: it knows no coordinator, broker or wire type. The broker
// ranges a check needs come in as Bounds; what a caller does with a valid
// config is the caller's. It never reads a clock or keeps state.
package groupconfig
