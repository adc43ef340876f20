package statemachine

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

//go:embed redrive.asl.json
var redriveASL string

//go:embed admin.asl.json
var adminASL string

//go:embed release.asl.json
var releaseASL string

// Definition is one embedded ASL template.
type Definition struct {
	// Name is the definition's file name, for messages.
	Name string
	// Template is the ASL with "${Name}" placeholders.
	Template string
}

// Redrive is the attempt state machine: one execution (Express by
// default) per delivery try of a message.
func Redrive() Definition { return Definition{Name: "redrive.asl.json", Template: redriveASL} }

// Admin is the operator's state machine.
func Admin() Definition { return Definition{Name: "admin.asl.json", Template: adminASL} }

// Release is the breaker's controller, one execution (Standard) per
// breaker key at a time while its room holds messages.
func Release() Definition { return Definition{Name: "release.asl.json", Template: releaseASL} }

// Substitution names, as used in the templates and by the CDK stack.
const (
	AttemptFunctionArn = "AttemptFunctionArn"
	ParkFunctionArn    = "ParkFunctionArn"
	AdminFunctionArn   = "AdminFunctionArn"
	// WaitingRoomFunctionArn and ReleaseFunctionArn are the waiting
	// room's entry (the Queue task) and the controller's tick.
	WaitingRoomFunctionArn = "WaitingRoomFunctionArn"
	ReleaseFunctionArn     = "ReleaseFunctionArn"
)

var placeholder = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)

// Placeholders lists the template's substitution names, sorted, once each.
func (d Definition) Placeholders() []string {
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(d.Template, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	sort.Strings(names)
	return names
}

// Render replaces every placeholder with its value. A placeholder without a
// value, a value for no placeholder, or a value that would break the JSON
// string it lands in is an error; the result is checked to be valid JSON.
func (d Definition) Render(values map[string]string) (string, error) {
	want := d.Placeholders()
	var missing, unused []string
	for _, name := range want {
		if values[name] == "" {
			missing = append(missing, name)
		}
	}
	for name := range values {
		if !slices.Contains(want, name) {
			unused = append(unused, name)
		}
	}
	if len(missing) > 0 || len(unused) > 0 {
		sort.Strings(unused)
		return "", fmt.Errorf("statemachine: render %s: missing %v, unknown %v", d.Name, missing, unused)
	}
	for name, v := range values {
		if strings.ContainsAny(v, "\"\\\n") {
			return "", fmt.Errorf("statemachine: render %s: value of %s %q must not contain quotes, backslashes or newlines", d.Name, name, v)
		}
	}
	out := placeholder.ReplaceAllStringFunc(d.Template, func(m string) string {
		return values[m[2:len(m)-1]]
	})
	if !json.Valid([]byte(out)) {
		return "", fmt.Errorf("statemachine: render %s: result is not valid JSON", d.Name)
	}
	return out, nil
}

// ErrorNames lists the custom error names the template's Retry and Catch
// rules match: every ErrorEquals entry that is not a "States." or "Lambda."
// name. Each must be an exported Go error type of a task.
func (d Definition) ErrorNames() ([]string, error) {
	var doc struct {
		States map[string]struct {
			Retry []struct{ ErrorEquals []string }
			Catch []struct{ ErrorEquals []string }
		}
	}
	if err := json.Unmarshal([]byte(d.Template), &doc); err != nil {
		return nil, fmt.Errorf("statemachine: parse %s: %w", d.Name, err)
	}
	var names []string
	add := func(list []string) {
		for _, n := range list {
			if strings.HasPrefix(n, "States.") || strings.HasPrefix(n, "Lambda.") || slices.Contains(names, n) {
				continue
			}
			names = append(names, n)
		}
	}
	for _, s := range doc.States {
		for _, r := range s.Retry {
			add(r.ErrorEquals)
		}
		for _, c := range s.Catch {
			add(c.ErrorEquals)
		}
	}
	sort.Strings(names)
	return names, nil
}
