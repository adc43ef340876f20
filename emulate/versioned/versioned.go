// Package versioned reads the versioned JSON snapshots the local stack's
// servers write to survive a restart (sqslocal's queues, the executor's
// executions): the format is checked first, so another version is named
// as such, then the whole document strictly, so a corrupt one says where.
package versioned

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Read decodes into a T the snapshot r holds, which must be a JSON object
// whose "format" member is format and with no member T does not know.
// reader names what reads it, for the errors ("this server").
func Read[T any](r io.Reader, format, reader string) (*T, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	var head map[string]json.RawMessage
	if err := json.Unmarshal(data, &head); err != nil {
		if typeErr, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return nil, fmt.Errorf("snapshot is a JSON %s, not an object", typeErr.Value)
		}
		return nil, fmt.Errorf("snapshot is not valid JSON: %w", err)
	}
	var got string
	switch raw, ok := head["format"]; {
	case !ok:
		return nil, fmt.Errorf("snapshot has no format field: %s reads %q", reader, format)
	case json.Unmarshal(raw, &got) != nil || got != format:
		return nil, fmt.Errorf("snapshot format %s is not supported: %s reads %q", raw, reader, format)
	}
	var snap T
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&snap); err != nil {
		return nil, fmt.Errorf("malformed snapshot: %w", err)
	}
	return &snap, nil
}
