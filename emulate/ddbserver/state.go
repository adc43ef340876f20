package ddbserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
)

// snapshotFormat versions what Snapshot writes.
const snapshotFormat = 1

// snapshot is what Snapshot writes: every table, as it was created, with
// its TTL setting and its items, in DynamoDB JSON.
type snapshot struct {
	Format int             `json:"format"`
	Tables []tableSnapshot `json:"tables"`
}

// tableSnapshot is one table of a snapshot.
type tableSnapshot struct {
	Create       json.RawMessage   `json:"create"` // the CreateTable request
	TTLAttribute string            `json:"ttlAttribute,omitempty"`
	Items        []json.RawMessage `json:"items"`
}

// Snapshot writes every table of h, with its items, to w, so Restore can
// rebuild them after a restart. Writes made while it runs may or may not
// be in it.
func (h *Handler) Snapshot(w io.Writer) error {
	h.mu.RLock()
	names := slices.Sorted(maps.Keys(h.tables))
	tables := maps.Clone(h.tables)
	h.mu.RUnlock()
	snap := snapshot{Format: snapshotFormat}
	for _, name := range names {
		t := tables[name]
		items, err := h.scan(name, nil)
		if err != nil {
			return fmt.Errorf("ddbserver: snapshot table %s: %w", name, err)
		}
		ts := tableSnapshot{Create: t.create, Items: items}
		if t.ttl.enabled {
			ts.TTLAttribute = t.ttl.attribute
		}
		snap.Tables = append(snap.Tables, ts)
	}
	return json.NewEncoder(w).Encode(snap)
}

// Restore creates the tables and items of a snapshot written by Snapshot
// in h, which must hold none of those tables yet.
func (h *Handler) Restore(r io.Reader) error {
	var snap snapshot
	if err := json.NewDecoder(r).Decode(&snap); err != nil {
		return fmt.Errorf("ddbserver: restore: not a snapshot: %w", err)
	}
	if snap.Format != snapshotFormat {
		return fmt.Errorf("ddbserver: restore: snapshot format %d, want %d", snap.Format, snapshotFormat)
	}
	for i, t := range snap.Tables {
		if err := h.restoreTable(t); err != nil {
			return fmt.Errorf("ddbserver: restore table %d of %d: %w", i+1, len(snap.Tables), err)
		}
	}
	return nil
}

// restoreTable creates t's table, sets its TTL and puts its items.
func (h *Handler) restoreTable(t tableSnapshot) error {
	var in struct{ TableName string }
	if err := json.Unmarshal(t.Create, &in); err != nil || in.TableName == "" {
		return fmt.Errorf("a CreateTable request without a TableName: %s", t.Create)
	}
	if _, err := h.call("CreateTable", t.Create); err != nil {
		return err
	}
	if t.TTLAttribute != "" {
		spec, _ := json.Marshal(map[string]any{"TableName": in.TableName, // plain strings always encode
			"TimeToLiveSpecification": map[string]any{"AttributeName": t.TTLAttribute, "Enabled": true}})
		if _, err := h.call("UpdateTimeToLive", spec); err != nil {
			return err
		}
	}
	for _, item := range t.Items {
		put, _ := json.Marshal(map[string]any{"TableName": in.TableName, "Item": item}) // raw JSON always encodes
		if _, err := h.call("PutItem", put); err != nil {
			return err
		}
	}
	return nil
}

// sweepEvery is how many writes pass between two sweeps of expired items.
const sweepEvery = 1000

// writes are the operations that count toward the next sweep.
var writes = map[string]bool{"PutItem": true, "UpdateItem": true, "BatchWriteItem": true, "TransactWriteItems": true}

// afterWrite counts a write and, every sweepEvery of them, deletes the
// items whose TTL has passed, as DynamoDB's TTL does (see Sweep), in the
// background, so that write's caller does not wait for a scan of the
// table; one sweep at a time.
func (h *Handler) afterWrite(op string) {
	if h.clock == nil || !writes[op] || h.written.Add(1)%sweepEvery != 0 || !h.sweeping.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer h.sweeping.Store(false)
		_ = h.Sweep() // a failed sweep leaves items for the next one, as DynamoDB may
	}()
}

// Sweep deletes, from every table whose TTL is enabled, the items whose
// TTL attribute (Unix seconds) is before the handler's clock, as
// DynamoDB's TTL deletes expired items (there, within days; here, every
// sweepEvery writes). A handler made without a clock keeps every item.
func (h *Handler) Sweep() error {
	if h.clock == nil {
		return nil
	}
	h.mu.RLock()
	tables := maps.Clone(h.tables)
	h.mu.RUnlock()
	now := h.clock.Now().Unix()
	var errs []error
	for name, t := range tables {
		if !t.ttl.enabled {
			continue
		}
		x := &expiry{attr: t.ttl.attribute, before: now}
		expired, err := h.scan(name, x)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, item := range expired {
			errs = append(errs, h.deleteExpired(name, t.keys, x, item))
		}
	}
	return errors.Join(errs...)
}

// expiry is the condition that an item's TTL attribute attr is a number
// below before (Unix seconds): it has expired.
type expiry struct {
	attr   string
	before int64
}

// apply puts the condition into the request in, as its member expression
// (FilterExpression or ConditionExpression).
func (x *expiry) apply(in map[string]any, expression string) {
	in[expression] = "#ttl < :before"
	in["ExpressionAttributeNames"] = map[string]string{"#ttl": x.attr}
	in["ExpressionAttributeValues"] = map[string]any{":before": map[string]string{"N": strconv.FormatInt(x.before, 10)}}
}

// deleteExpired deletes item, whose key attributes are keys, from table if
// it has still expired by x.
func (h *Handler) deleteExpired(table string, keys []string, x *expiry, item json.RawMessage) error {
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(item, &attrs); err != nil {
		return err
	}
	key := make(map[string]json.RawMessage, len(keys))
	for _, k := range keys {
		key[k] = attrs[k]
	}
	in := map[string]any{"TableName": table, "Key": key}
	x.apply(in, "ConditionExpression")
	del, err := json.Marshal(in)
	if err != nil {
		return err
	}
	_, err = h.call("DeleteItem", del)
	if err != nil && strings.Contains(err.Error(), "ConditionalCheckFailed") {
		return nil // written again since the scan
	}
	return err
}

// scan returns every item of table, or, with expired set, those it
// holds.
func (h *Handler) scan(table string, expired *expiry) ([]json.RawMessage, error) {
	var items []json.RawMessage
	var start json.RawMessage
	for {
		in := map[string]any{"TableName": table}
		if start != nil {
			in["ExclusiveStartKey"] = start
		}
		if expired != nil {
			expired.apply(in, "FilterExpression")
		}
		body, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		out, err := h.call("Scan", body)
		if err != nil {
			return nil, err
		}
		var page struct {
			Items            []json.RawMessage
			LastEvaluatedKey json.RawMessage
		}
		if err := json.Unmarshal(out, &page); err != nil {
			return nil, err
		}
		items = append(items, page.Items...)
		if len(page.LastEvaluatedKey) == 0 || string(page.LastEvaluatedKey) == "null" {
			return items, nil
		}
		start = page.LastEvaluatedKey
	}
}

// call has the handler itself serve op with body, as a client's request
// would be served, and returns the response body, or an error carrying an
// error response.
func (h *Handler) call(op string, body []byte) ([]byte, error) {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	req.Header.Set("Content-Type", contentType)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("%s: %d %s", op, rec.Code, bytes.TrimSpace(rec.Body.Bytes()))
	}
	return rec.Body.Bytes(), nil
}
