package message_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/message"
)

// selector reads a KeySelector from vars and requires it to be valid.
func selector(t *testing.T, vars map[string]string) message.KeySelector {
	t.Helper()
	env := config.From(func(name string) string { return vars[name] })
	s := message.KeySelectorFromEnv(env)
	require.NoError(t, env.Err())
	return s
}
