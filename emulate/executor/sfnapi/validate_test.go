package sfnapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
)

func TestValidateStateMachineDefinition(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()

	for _, def := range []string{attemptDef, cooldownDef} {
		out, err := v.client.ValidateStateMachineDefinition(ctx, &sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(def)})
		require.NoError(t, err)
		assert.Equal(t, sfntypes.ValidateStateMachineDefinitionResultCodeOk, out.Result)
		assert.NotNil(t, out.Diagnostics)
		assert.Empty(t, out.Diagnostics)
		assert.False(t, aws.ToBool(out.Truncated))
	}

	// Each invalid definition fails with the executor's own error, as the
	// one ERROR diagnostic, located at the state and field it names.
	tests := []struct {
		name, definition, code, location string
	}{
		{"not JSON", `{"StartAt":`, "INVALID_JSON_DESCRIPTION", ""},
		{"not an object", `[]`, "SCHEMA_VALIDATION_FAILED", ""},
		{"no StartAt", `{"States":{"Done":{"Type":"Succeed"}}}`, "SCHEMA_VALIDATION_FAILED", "/StartAt"},
		{"StartAt a missing state", `{"StartAt":"Nope","States":{"Done":{"Type":"Succeed"}}}`, "SCHEMA_VALIDATION_FAILED", "/StartAt"},
		{"unsupported top-level field", `{"StartAt":"Done","Extra":1,"States":{"Done":{"Type":"Succeed"}}}`, "SCHEMA_VALIDATION_FAILED", "/Extra"},
		{"unsupported resource", `{"StartAt":"Send","States":{"Send":{"Type":"Task","Resource":"arn:aws:states:::sqs:sendMessage","End":true}}}`,
			"INVALID_RESOURCE", "/States/Send/Resource"},
		{"Map state", `{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{},"End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/M/Type"},
		{"Next a missing state", `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":1,"Next":"Nope"}}}`, "SCHEMA_VALIDATION_FAILED", "/States/W/Next"},
		{"retrier field", `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:f",
			"Retry":[{"ErrorEquals":["States.Timeout"]},{"ErrorEquals":["States.ALL"],"MaxAttempts":-1}],"End":true}}}`,
			"SCHEMA_VALIDATION_FAILED", "/States/T/Retry/1/MaxAttempts"},
		{"catcher target", `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:f",
			"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Nope"}],"End":true}}}`,
			"SCHEMA_VALIDATION_FAILED", "/States/T/Catch/0/Next"},
		{"Choice target", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsPresent":true,"Next":"Nope"}],"Default":"D"},
			"D":{"Type":"Succeed"}}}`, "SCHEMA_VALIDATION_FAILED", "/States/C/Choices/0/Next"},
		{"Choice Rule, located by its state", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","Next":"D"}]},
			"D":{"Type":"Succeed"}}}`, "SCHEMA_VALIDATION_FAILED", "/States/C"},
		{"unreachable state", `{"StartAt":"D","States":{"D":{"Type":"Succeed"},"Orphan":{"Type":"Succeed"}}}`, "SCHEMA_VALIDATION_FAILED", "/States/Orphan"},
		{"state name escaped in the pointer", `{"StartAt":"a/b~c","States":{"a/b~c":{"Type":"Pass"}}}`, "SCHEMA_VALIDATION_FAILED", "/States/a~1b~0c/Next"},
		{"state name quoted in the message", `{"StartAt":"say \"hi\"","States":{"say \"hi\"":{"Type":"Pass"}}}`, "SCHEMA_VALIDATION_FAILED", `/States/say "hi"/Next`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, createErr := executor.New(executor.Options{}).CreateStateMachine(ctx, "m", tt.definition, roleARN)
			require.ErrorIs(t, createErr, executor.ErrInvalidDefinition)
			for _, severity := range []sfntypes.ValidateStateMachineDefinitionSeverity{"", sfntypes.ValidateStateMachineDefinitionSeverityWarning} {
				out, err := v.client.ValidateStateMachineDefinition(ctx, &sfn.ValidateStateMachineDefinitionInput{
					Definition: aws.String(tt.definition), Severity: severity, MaxResults: 1,
				})
				require.NoError(t, err)
				assert.Equal(t, sfntypes.ValidateStateMachineDefinitionResultCodeFail, out.Result)
				assert.False(t, aws.ToBool(out.Truncated))
				require.Len(t, out.Diagnostics, 1)
				d := out.Diagnostics[0]
				assert.Equal(t, sfntypes.ValidateStateMachineDefinitionSeverityError, d.Severity)
				assert.Equal(t, tt.code, aws.ToString(d.Code))
				assert.Equal(t, strings.TrimPrefix(createErr.Error(), executor.ErrInvalidDefinition.Error()+": "), aws.ToString(d.Message))
				assert.Equal(t, tt.location, aws.ToString(d.Location))
			}
		})
	}

	t.Run("validating creates nothing", func(t *testing.T) {
		out, err := v.client.ListStateMachines(ctx, &sfn.ListStateMachinesInput{})
		require.NoError(t, err)
		assert.Empty(t, out.StateMachines)
		_, err = v.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{
			StateMachineArn: aws.String("arn:aws:states:us-east-1:123456789012:stateMachine:validate"),
		})
		requireAPIError(t, err, "StateMachineDoesNotExist", true)
	})
}
