package boltstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/coordsim/coordsim/plugin"
)

// recordVersion is the version of the stored record format. A new format gets a new
// version, and decode keeps reading the old ones.
const recordVersion = 1

// maxRecordBytes bounds what decode accepts, far above any description Validate
// accepts, so that a corrupt length cannot make it allocate without bound.
const maxRecordBytes = 64 << 20

// errCorrupt is wrapped by every decode error: the row is unreadable and retrying
// will not change that.
var errCorrupt = errors.New("corrupt topology description record")

// record is one stored row.
type record struct {
	Version     int                         `json:"v"`
	Epoch       int32                       `json:"epoch"`
	Description *plugin.TopologyDescription `json:"description"`
}

// encode returns the stored form of (epoch, d). The same input always gives the same
// bytes.
func encode(epoch int32, d *plugin.TopologyDescription) ([]byte, error) {
	b, err := json.Marshal(record{Version: recordVersion, Epoch: epoch, Description: d})
	if err != nil {
		return nil, fmt.Errorf("encode topology description: %w", err)
	}
	return b, nil
}

// decode reads a stored row back. It rejects anything encode would not have
// produced from a valid description: unknown fields, trailing data, another version,
// a negative epoch, an invalid description.
func decode(b []byte) (int32, *plugin.TopologyDescription, error) {
	if len(b) > maxRecordBytes {
		return 0, nil, fmt.Errorf("%w: %d bytes exceed %d", errCorrupt, len(b), maxRecordBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r record
	if err := dec.Decode(&r); err != nil {
		return 0, nil, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, nil, fmt.Errorf("%w: trailing data after the record", errCorrupt)
	}
	switch {
	case r.Version != recordVersion:
		return 0, nil, fmt.Errorf("%w: record version %d, want %d", errCorrupt, r.Version, recordVersion)
	case r.Epoch < 0:
		return 0, nil, fmt.Errorf("%w: negative topology epoch %d", errCorrupt, r.Epoch)
	}
	if err := r.Description.Validate(); err != nil {
		return 0, nil, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	return r.Epoch, r.Description, nil
}

// decodeEpoch reads only the epoch of a stored row, for the older-epoch check of a
// set, without decoding the description.
func decodeEpoch(b []byte) (int32, error) {
	var r struct {
		Version int   `json:"v"`
		Epoch   int32 `json:"epoch"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return 0, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	if r.Version != recordVersion {
		return 0, fmt.Errorf("%w: record version %d, want %d", errCorrupt, r.Version, recordVersion)
	}
	return r.Epoch, nil
}
