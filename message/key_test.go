package message_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/message"
)

func TestKeySelectorSelect(t *testing.T) {
	body := `{"tenant":{"id":"acme","n":7,"nil":null,"tags":["blue","green"]},"a/b":"slash","m~n":"tilde","~1":"literal","":"empty-name","big":` +
		`"` + strings.Repeat("k", message.MaxKeyLength+1) + `","blank":""}`
	attrs := map[string]message.Attribute{
		"tenant":   message.StringAttribute("acme"),
		"shard":    {DataType: "Number", StringValue: "12"},
		"region":   {DataType: "String.region", StringValue: "eu"},
		"sig":      {DataType: "Binary", BinaryValue: []byte{1}},
		"nothing":  {DataType: "String"},
		"too long": message.StringAttribute(strings.Repeat("k", message.MaxKeyLength+1)),
		"padded":   message.StringAttribute("acme "),
		"control":  message.StringAttribute("ac\tme"),
	}
	msg := message.Message{ID: "m-1", Body: body, MessageAttributes: attrs}
	tests := []struct {
		name    string
		vars    map[string]string
		msg     *message.Message // default msg
		want    string
		problem string // non-empty: Select fails with ErrNoKey and this text
	}{
		{name: "nothing set", want: "default"},
		{name: "nothing set, own fallback", vars: map[string]string{message.EnvKeyDefault: "unsorted"}, want: "unsorted"},
		{name: "fixed", vars: map[string]string{message.EnvKey: "orders"}, want: "orders"},
		{name: "attribute", vars: map[string]string{message.EnvKeyAttribute: "tenant"}, want: "acme"},
		{name: "number attribute", vars: map[string]string{message.EnvKeyAttribute: "shard"}, want: "12"},
		{name: "custom string type", vars: map[string]string{message.EnvKeyAttribute: "region"}, want: "eu"},
		{name: "attribute missing", vars: map[string]string{message.EnvKeyAttribute: "customer"}, problem: `message "m-1" has no attribute "customer"`},
		{name: "binary attribute", vars: map[string]string{message.EnvKeyAttribute: "sig"}, problem: `attribute "sig" has data type "Binary"`},
		{name: "empty attribute", vars: map[string]string{message.EnvKeyAttribute: "nothing"}, problem: "empty breaker key"},
		{name: "attribute too long", vars: map[string]string{message.EnvKeyAttribute: "too long"}, problem: "want at most 256"},
		// The admin refuses such keys (message.CheckKey): the starter must
		// not create a breaker nobody can reset.
		{name: "attribute with a trailing space", vars: map[string]string{message.EnvKeyAttribute: "padded"}, problem: `breaker key "acme " starts or ends with spaces`},
		{name: "attribute with a tab", vars: map[string]string{message.EnvKeyAttribute: "control"}, problem: "contains control characters"},
		{name: "pointer", vars: map[string]string{message.EnvKeyPointer: "/tenant/id"}, want: "acme"},
		{name: "pointer into an array", vars: map[string]string{message.EnvKeyPointer: "/tenant/tags/1"}, want: "green"},
		{name: "pointer escape ~1", vars: map[string]string{message.EnvKeyPointer: "/a~1b"}, want: "slash"},
		{name: "pointer escape ~0", vars: map[string]string{message.EnvKeyPointer: "/m~0n"}, want: "tilde"},
		{name: "pointer escape ~01 is ~1", vars: map[string]string{message.EnvKeyPointer: "/~01"}, want: "literal"},
		{name: "pointer to the empty name", vars: map[string]string{message.EnvKeyPointer: "/"}, want: "empty-name"},
		{name: "pointer missing member", vars: map[string]string{message.EnvKeyPointer: "/tenant/name"}, problem: `no member "name" at "/tenant"`},
		{name: "pointer to a number", vars: map[string]string{message.EnvKeyPointer: "/tenant/n"}, problem: "refers to a number, want a string"},
		{name: "pointer to null", vars: map[string]string{message.EnvKeyPointer: "/tenant/nil"}, problem: "refers to null"},
		{name: "pointer to an object", vars: map[string]string{message.EnvKeyPointer: "/tenant"}, problem: "refers to an object"},
		{name: "pointer to an empty string", vars: map[string]string{message.EnvKeyPointer: "/blank"}, problem: "empty breaker key"},
		{name: "pointer to a long string", vars: map[string]string{message.EnvKeyPointer: "/big"}, problem: "want at most 256"},
		{name: "pointer through a string", vars: map[string]string{message.EnvKeyPointer: "/tenant/id/x"}, problem: `at "/tenant/id": cannot look up "x" in a string`},
		{name: "index past the end", vars: map[string]string{message.EnvKeyPointer: "/tenant/tags/2"}, problem: "index 2 is past the end of an array of 2"},
		{name: "index dash", vars: map[string]string{message.EnvKeyPointer: "/tenant/tags/-"}, problem: `"-" is not an array index`},
		{name: "index leading zero", vars: map[string]string{message.EnvKeyPointer: "/tenant/tags/01"}, problem: `"01" is not an array index`},
		{name: "index not a number", vars: map[string]string{message.EnvKeyPointer: "/tenant/tags/first"}, problem: `"first" is not an array index`},
		{name: "index huge", vars: map[string]string{message.EnvKeyPointer: "/tenant/tags/99999999999999999999999"}, problem: "past the end"},
		{name: "body not JSON", vars: map[string]string{message.EnvKeyPointer: "/tenant/id"}, msg: &message.Message{ID: "m-2", Body: "tenant=acme"}, problem: "body is not JSON"},
		{name: "body with trailing data", vars: map[string]string{message.EnvKeyPointer: "/tenant/id"}, msg: &message.Message{ID: "m-2", Body: `{"tenant":{"id":"a"}} {}`}, problem: "data after the top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := selector(t, tt.vars)
			m := msg
			if tt.msg != nil {
				m = *tt.msg
			}
			got, err := s.Select(m)
			if tt.problem == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, message.ErrNoKey)
			assert.Contains(t, err.Error(), tt.problem)
			assert.Contains(t, err.Error(), m.ID)
			assert.Empty(t, got)
			assert.NotEmpty(t, s.Fallback(), "the caller falls back")
		})
	}
}

func TestKeySelectorConfigErrors(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		problems map[string]string // variable -> part of its message
	}{
		{
			name: "two sources",
			vars: map[string]string{message.EnvKey: "orders", message.EnvKeyAttribute: "tenant"},
			problems: map[string]string{
				message.EnvKey:          "set at most one of BREAKER_KEY, BREAKER_KEY_ATTRIBUTE and BREAKER_KEY_POINTER",
				message.EnvKeyAttribute: "[BREAKER_KEY BREAKER_KEY_ATTRIBUTE] are set",
			},
		},
		{
			name: "three sources",
			vars: map[string]string{message.EnvKey: "orders", message.EnvKeyAttribute: "tenant", message.EnvKeyPointer: "/t"},
			problems: map[string]string{
				message.EnvKey:          "set at most one",
				message.EnvKeyAttribute: "set at most one",
				message.EnvKeyPointer:   "set at most one",
			},
		},
		{name: "pointer without slash", vars: map[string]string{message.EnvKeyPointer: "tenant/id"}, problems: map[string]string{message.EnvKeyPointer: `must start with "/"`}},
		{name: "pointer bad escape", vars: map[string]string{message.EnvKeyPointer: "/a~2b"}, problems: map[string]string{message.EnvKeyPointer: `"~" must be followed by 0 or 1`}},
		{name: "pointer trailing tilde", vars: map[string]string{message.EnvKeyPointer: "/a~"}, problems: map[string]string{message.EnvKeyPointer: "bad escape"}},
		{name: "fixed key too long", vars: map[string]string{message.EnvKey: strings.Repeat("k", 300)}, problems: map[string]string{message.EnvKey: "want at most 256"}},
		{name: "fallback too long", vars: map[string]string{message.EnvKeyDefault: strings.Repeat("k", 300)}, problems: map[string]string{message.EnvKeyDefault: "want at most 256"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := config.From(func(name string) string { return tt.vars[name] })
			message.KeySelectorFromEnv(env)
			err := env.Err()
			require.Error(t, err)
			got := map[string]string{}
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var verr *config.VarError
				require.ErrorAs(t, e, &verr)
				got[verr.Name] = verr.Error()
			}
			assert.Len(t, got, len(tt.problems))
			for name, part := range tt.problems {
				assert.Contains(t, got[name], part, name)
			}
		})
	}
}

func TestZeroKeySelector(t *testing.T) {
	_, err := message.KeySelector{}.Select(message.Message{ID: "m-1"})
	assert.ErrorIs(t, err, message.ErrNoKey)
	assert.Contains(t, err.Error(), "no key source configured")
}
