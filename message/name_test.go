package message_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/message"
)

// validName is the character set ExecutionName promises: a subset of Step
// Functions' rules that keeps CloudWatch Logs logging enabled.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

// hashed matches a name whose origin part was cut or rewritten.
var hashed = regexp.MustCompile(`(^|-)[0-9a-f]{12}-a[0-9]+(-r[0-9]+)?$`)

func TestExecutionName(t *testing.T) {
	long := strings.Repeat("x", 90)
	tests := []struct {
		name       string
		origin     string
		attempt    int
		run        int
		want       string // exact name; empty: check the pattern only
		wantPrefix string
	}{
		{name: "sqs message id", origin: "059f36b4-87a3-44ab-83d2-661975830a7d", attempt: 1, want: "059f36b4-87a3-44ab-83d2-661975830a7d-a1"},
		{name: "later attempt", origin: "059f36b4-87a3-44ab-83d2-661975830a7d", attempt: 12, want: "059f36b4-87a3-44ab-83d2-661975830a7d-a12"},
		{name: "later run", origin: "059f36b4-87a3-44ab-83d2-661975830a7d", attempt: 2, run: 3, want: "059f36b4-87a3-44ab-83d2-661975830a7d-a2-r3"},
		{name: "underscore kept", origin: "order_42", attempt: 1, want: "order_42-a1"},
		{name: "exactly fits", origin: strings.Repeat("y", 77), attempt: 1, want: strings.Repeat("y", 77) + "-a1"},
		{name: "one too long", origin: strings.Repeat("y", 78), attempt: 1, wantPrefix: strings.Repeat("y", 64) + "-"},
		{name: "too long with a run", origin: long, attempt: 7, run: 12, wantPrefix: strings.Repeat("x", 60) + "-"},
		{name: "slash", origin: "orders/42", attempt: 1, wantPrefix: "orders-42-"},
		{name: "space", origin: "order 42", attempt: 1, wantPrefix: "order-42-"},
		{name: "unicode", origin: "commande-été-日本", attempt: 1, wantPrefix: "commande--t----"},
		{name: "empty origin", origin: "", attempt: 1},
		{name: "only forbidden", origin: "???", attempt: 1, wantPrefix: "----"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := message.ExecutionName(tt.origin, tt.attempt, tt.run)
			assert.Regexp(t, validName, got)
			assert.Equal(t, got, message.ExecutionName(tt.origin, tt.attempt, tt.run), "deterministic")
			if tt.want != "" {
				assert.Equal(t, tt.want, got)
				return
			}
			assert.Regexp(t, hashed, got, "a cut or rewritten origin carries a hash")
			assert.True(t, strings.HasPrefix(got, tt.wantPrefix), "%q starts with %q", got, tt.wantPrefix)
		})
	}
}

func TestExecutionNameForbiddenCharacters(t *testing.T) {
	const forbidden = " \t\n\r\v\f\u00a0\u2003<>{}[]?*\"#%\\^|~`$&,;:/\x00\x01\x1f\x7f\u0080\u009f"
	for _, r := range forbidden {
		t.Run(fmt.Sprintf("%U", r), func(t *testing.T) {
			origin := "a" + string(r) + "b"
			got := message.ExecutionName(origin, 1, 0)
			assert.Regexp(t, validName, got)
			assert.True(t, strings.HasPrefix(got, "a-b-"), "%q", got)
			assert.NotEqual(t, message.ExecutionName("a-b", 1, 0), got, "differs from the origin it was rewritten into")
		})
	}
}

func TestExecutionNameDistinct(t *testing.T) {
	prefix := strings.Repeat("p", 80)
	names := map[string]string{}
	for _, origin := range []string{
		prefix + "1", prefix + "2", prefix, // share an 80-character prefix
		"a:b", "a/b", "a b", "a-b", // rewrite to the same characters
		"été", "ete", "√©√", // non-ASCII
	} {
		for _, run := range []struct{ attempt, run int }{{1, 0}, {2, 0}, {1, 1}} {
			got := message.ExecutionName(origin, run.attempt, run.run)
			assert.Regexp(t, validName, got)
			if other, dup := names[got]; dup {
				t.Errorf("%q and %q (%+v) both named %q", other, origin, run, got)
			}
			names[got] = origin
		}
	}
}
