package ddbserver

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
)

// maxListTables is ListTables' largest and default Limit.
const maxListTables = 100

// timeToLive is a table's TTL setting.
type timeToLive struct {
	attribute string
	enabled   bool
}

// describe rewrites minidyn's answer to op (whose request was in), which
// describes a table as d says, with the table's status and without the
// null and empty members minidyn writes for the unset fields of the SDK's
// TableDescription, and records a table created or deleted. The caller
// holds h.mu.
func (h *Handler) describe(op string, d describedTable, in, out []byte) (map[string]json.RawMessage, error) {
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(resp[d.member]))
	dec.UseNumber()
	var desc map[string]any
	if err := dec.Decode(&desc); err != nil {
		return nil, err
	}
	prune(desc)
	desc["TableStatus"] = d.status
	name, _ := desc["TableName"].(string)
	switch op {
	case "CreateTable":
		var req struct {
			KeySchema []struct{ AttributeName string }
		}
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, err
		}
		t := tableState{create: slices.Clone(in)}
		for _, k := range req.KeySchema {
			t.keys = append(t.keys, k.AttributeName)
		}
		h.tables[name] = t
	case "DeleteTable":
		delete(h.tables, name)
	}
	var err error
	resp[d.member], err = json.Marshal(desc)
	return resp, err
}

// prune drops, in place, the null and empty-string members of v's objects.
func prune(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			if m == nil || m == "" {
				delete(v, k)
			} else {
				prune(m)
			}
		}
	case []any:
		for _, e := range v {
			prune(e)
		}
	}
}

// listTables answers ListTables: the names after ExclusiveStartTableName,
// in order, at most Limit of them, and the last one as
// LastEvaluatedTableName when more follow.
func (h *Handler) listTables(body []byte) (any, *apiError) {
	var in struct {
		ExclusiveStartTableName string
		Limit                   *int32
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, serialization(err.Error())
	}
	limit := int32(maxListTables)
	if in.Limit != nil {
		limit = *in.Limit
	}
	var v violations
	v.add(limit < 1, "Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", limit)
	v.add(limit > maxListTables, "Value '%d' at 'limit' failed to satisfy constraint: Member must have value less than or equal to %d", limit, maxListTables)
	if aerr := v.err(); aerr != nil {
		return nil, aerr
	}
	h.mu.RLock()
	names := slices.Sorted(maps.Keys(h.tables))
	h.mu.RUnlock()
	start, found := slices.BinarySearch(names, in.ExclusiveStartTableName)
	if found {
		start++
	}
	end := min(start+int(limit), len(names))
	out := struct {
		TableNames             []string
		LastEvaluatedTableName string `json:",omitempty"`
	}{TableNames: append([]string{}, names[start:end]...)}
	if end < len(names) {
		out.LastEvaluatedTableName = names[end-1]
	}
	return out, nil
}

// ttlDescription is DynamoDB's TimeToLiveDescription.
type ttlDescription struct {
	TimeToLiveStatus string
	AttributeName    string `json:",omitempty"`
}

// describeTimeToLive answers DescribeTimeToLive with the table's setting:
// ENABLED and its attribute, or DISABLED.
func (h *Handler) describeTimeToLive(body []byte) (any, *apiError) {
	var in struct{ TableName *string }
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, serialization(err.Error())
	}
	var v violations
	v.add(in.TableName == nil, mustNotBeNull, "tableName")
	if aerr := v.err(); aerr != nil {
		return nil, aerr
	}
	h.mu.RLock()
	t, ok := h.tables[*in.TableName]
	h.mu.RUnlock()
	if !ok {
		return nil, tableNotFound(*in.TableName)
	}
	ttl := t.ttl
	desc := ttlDescription{TimeToLiveStatus: "DISABLED"}
	if ttl.enabled {
		desc = ttlDescription{TimeToLiveStatus: "ENABLED", AttributeName: ttl.attribute}
	}
	return map[string]ttlDescription{"TimeToLiveDescription": desc}, nil
}

// ttlSpecification is DynamoDB's TimeToLiveSpecification.
type ttlSpecification struct {
	AttributeName *string
	Enabled       *bool
}

// updateTimeToLive answers UpdateTimeToLive: it records the table's new
// setting and echoes it. Enabling TTL that is enabled, or disabling TTL
// that is disabled, is a ValidationException, as on AWS.
func (h *Handler) updateTimeToLive(body []byte) (any, *apiError) {
	var in struct {
		TableName               *string
		TimeToLiveSpecification *ttlSpecification
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, serialization(err.Error())
	}
	spec := in.TimeToLiveSpecification
	var v violations
	v.add(in.TableName == nil, mustNotBeNull, "tableName")
	v.add(spec == nil, mustNotBeNull, "timeToLiveSpecification")
	if spec != nil {
		v.add(spec.AttributeName == nil, mustNotBeNull, "timeToLiveSpecification.attributeName")
		v.add(spec.AttributeName != nil && *spec.AttributeName == "", "Value '' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1")
		v.add(spec.Enabled == nil, mustNotBeNull, "timeToLiveSpecification.enabled")
	}
	if aerr := v.err(); aerr != nil {
		return nil, aerr
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.tables[*in.TableName]
	switch {
	case !ok:
		return nil, tableNotFound(*in.TableName)
	case *spec.Enabled && t.ttl.enabled:
		return nil, validation("TimeToLive is already enabled")
	case !*spec.Enabled && !t.ttl.enabled:
		return nil, validation("TimeToLive is already disabled")
	}
	t.ttl = timeToLive{attribute: *spec.AttributeName, enabled: *spec.Enabled}
	h.tables[*in.TableName] = t
	return map[string]*ttlSpecification{"TimeToLiveSpecification": spec}, nil
}
