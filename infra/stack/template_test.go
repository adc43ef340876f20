package stack

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// render writes a template value as text: references become {Id} and
// {Id.Attribute}, joins are joined, so tests can compare what a value
// points at without CloudFormation's JSON shapes.
func render(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		if ref, ok := v["Ref"].(string); ok {
			return "{" + ref + "}"
		}
		if att, ok := v["Fn::GetAtt"].([]any); ok && len(att) == 2 {
			return fmt.Sprintf("{%v.%v}", att[0], att[1])
		}
		if join, ok := v["Fn::Join"].([]any); ok && len(join) == 2 {
			sep, _ := join[0].(string)
			parts, _ := join[1].([]any)
			texts := make([]string, len(parts))
			for i, p := range parts {
				texts[i] = render(p)
			}
			return strings.Join(texts, sep)
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// renderAll renders a value that is one item or a list of them.
func renderAll(v any) []string {
	if list, ok := v.([]any); ok {
		out := make([]string, len(list))
		for i, item := range list {
			out[i] = render(item)
		}
		return out
	}
	return []string{render(v)}
}

// id returns the logical id of the one resource of type typ whose
// construct id is constructID (logical ids are the construct id and a
// hash).
func (s *synthesized) id(t testing.TB, typ, constructID string) string {
	t.Helper()
	var found []string
	for _, id := range s.ofType(typ) {
		if len(id) == len(constructID)+8 && strings.HasPrefix(id, constructID) {
			found = append(found, id)
		}
	}
	require.Len(t, found, 1, "%s %s among %v", typ, constructID, s.ofType(typ))
	return found[0]
}

// grants lists what a role may do, from every policy attached to it, as
// "action on resource" lines, sorted; Allow statements only.
func (s *synthesized) grants(t testing.TB, roleID string) []string {
	t.Helper()
	var out []string
	for _, pid := range s.ofType("AWS::IAM::Policy") {
		p := s.resources[pid].Properties
		if !slices.Contains(renderAll(p["Roles"]), "{"+roleID+"}") {
			continue
		}
		for _, st := range statements(p["PolicyDocument"]) {
			if st["Effect"] != "Allow" {
				continue
			}
			for _, action := range renderAll(st["Action"]) {
				for _, res := range renderAll(st["Resource"]) {
					out = append(out, action+" on "+res)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// statements returns a policy document's statements.
func statements(doc any) []map[string]any {
	d, _ := doc.(map[string]any)
	list, _ := d["Statement"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, st := range list {
		if m, ok := st.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
