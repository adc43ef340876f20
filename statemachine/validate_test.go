package statemachine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/statemachine"
)

// TestDefinitionsLoad renders every definition and loads them into the local
// executor, whose validator rejects anything outside the supported ASL.
func TestDefinitionsLoad(t *testing.T) {
	for _, def := range []statemachine.Definition{statemachine.Redrive(), statemachine.Admin(), statemachine.Release()} {
		t.Run(def.Name, func(t *testing.T) {
			values := map[string]string{}
			for _, name := range def.Placeholders() {
				values[name] = "arn:aws:lambda:us-east-1:123456789012:function:" + name
			}
			asl, err := def.Render(values)
			require.NoError(t, err)
			e := executor.New(executor.Options{})
			_, err = e.CreateStateMachine(context.Background(), "sm", asl, "arn:aws:iam::123456789012:role/redrive")
			require.NoError(t, err)
		})
	}
}
