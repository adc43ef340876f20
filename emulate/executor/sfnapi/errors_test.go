package sfnapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every error the API returns, through the real client.
func TestClientErrors(t *testing.T) {
	v := newEnv(t)
	sm := v.create(t, "cooldown", cooldownDef)
	running := v.start(t, sm, "msg-1", `{}`)
	const (
		unknownMachine   = "arn:aws:states:us-east-1:123456789012:stateMachine:nope"
		unknownExecution = "arn:aws:states:us-east-1:123456789012:execution:cooldown:nope"
	)
	create := func(name, definition, role string, typ sfntypes.StateMachineType) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
				Name: aws.String(name), Definition: aws.String(definition), RoleArn: aws.String(role), Type: typ,
			})
			return err
		}
	}
	start := func(smARN, name, input string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.StartExecution(ctx, &sfn.StartExecutionInput{
				StateMachineArn: aws.String(smARN), Name: aws.String(name), Input: aws.String(input),
			})
			return err
		}
	}
	describe := func(arn string, included sfntypes.IncludedData) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn), IncludedData: included})
			return err
		}
	}
	history := func(arn string, maxResults int32) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: maxResults})
			return err
		}
	}
	list := func(smARN string, status sfntypes.ExecutionStatus, maxResults int32) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(smARN), StatusFilter: status, MaxResults: maxResults})
			return err
		}
	}
	stop := func(arn, errName, cause string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(arn), Error: aws.String(errName), Cause: aws.String(cause)})
			return err
		}
	}
	machineOf := func(arn string, included sfntypes.IncludedData) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.DescribeStateMachineForExecution(ctx, &sfn.DescribeStateMachineForExecutionInput{ExecutionArn: aws.String(arn), IncludedData: included})
			return err
		}
	}
	listMachines := func(maxResults int32, token string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.ListStateMachines(ctx, &sfn.ListStateMachinesInput{MaxResults: maxResults, NextToken: aws.String(token)})
			return err
		}
	}
	validate := func(definition string, typ sfntypes.StateMachineType, severity sfntypes.ValidateStateMachineDefinitionSeverity, maxResults int32) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.ValidateStateMachineDefinition(ctx, &sfn.ValidateStateMachineDefinitionInput{
				Definition: aws.String(definition), Type: typ, Severity: severity, MaxResults: maxResults,
			})
			return err
		}
	}
	tag := func(arn string, tags ...sfntypes.Tag) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.TagResource(ctx, &sfn.TagResourceInput{ResourceArn: aws.String(arn), Tags: tags})
			return err
		}
	}
	listTags := func(arn string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.ListTagsForResource(ctx, &sfn.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
			return err
		}
	}
	untag := func(arn string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.UntagResource(ctx, &sfn.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"team"}})
			return err
		}
	}
	createTagged := func(name string, tags []sfntypes.Tag) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
				Name: aws.String(name), Definition: aws.String(cooldownDef), RoleArn: aws.String(roleARN), Tags: tags,
			})
			return err
		}
	}
	manyTags := make([]sfntypes.Tag, 51)
	for i := range manyTags {
		manyTags[i] = sfntypes.Tag{Key: aws.String(fmt.Sprintf("k%d", i)), Value: aws.String("v")}
	}
	badTag := sfntypes.Tag{Key: aws.String("team#1"), Value: aws.String("ops")}

	// The SDK decodes an error into its own type only where the API model
	// lists it for the operation; AWS's ValidationException on
	// DescribeExecution and GetExecutionHistory is not listed, so it arrives
	// as a GenericAPIError with the same code.
	tests := []struct {
		name    string
		call    func(context.Context) error
		code    string
		generic bool
	}{
		{"definition not JSON", create("m", `{"StartAt":`, roleARN, ""), "InvalidDefinition", false},
		{"definition with a missing state", create("m", `{"StartAt":"Nope","States":{"Done":{"Type":"Succeed"}}}`, roleARN, ""), "InvalidDefinition", false},
		{"definition with a Map state", create("m", `{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{},"End":true}}}`, roleARN, ""), "InvalidDefinition", false},
		{"state machine name with a space", create("has space", cooldownDef, roleARN, ""), "InvalidName", false},
		{"state machine name over 80 characters", create(strings.Repeat("m", 81), cooldownDef, roleARN, ""), "InvalidName", false},
		{"role that is not an IAM role ARN", create("m", cooldownDef, "arn:aws:iam::123456789012:user/ops", ""), "InvalidArn", false},
		{"express workflow waiting for a task token", create("m", callbackDef, roleARN, sfntypes.StateMachineTypeExpress), "InvalidDefinition", false},
		{"unknown workflow type", create("m", cooldownDef, roleARN, "BATCH"), "ValidationException", false},
		{"describe unknown state machine", func(ctx context.Context) error {
			_, err := v.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(unknownMachine)})
			return err
		}, "StateMachineDoesNotExist", false},
		{"describe state machine by malformed ARN", func(ctx context.Context) error {
			_, err := v.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String("cooldown")})
			return err
		}, "InvalidArn", false},
		{"start unknown state machine", start(unknownMachine, "x", `{}`), "StateMachineDoesNotExist", false},
		{"start by an execution ARN", start(running, "x", `{}`), "InvalidArn", false},
		{"start with input that is not JSON", start(sm, "x", `{"a":`), "InvalidExecutionInput", false},
		{"start with input over 256 KiB", start(sm, "x", `"`+strings.Repeat("x", 256<<10)+`"`), "ValidationException", false},
		{"execution name with a slash", start(sm, "a/b", `{}`), "InvalidName", false},
		{"execution name over 80 characters", start(sm, strings.Repeat("n", 81), `{}`), "InvalidName", false},
		{"describe unknown execution", describe(unknownExecution, ""), "ExecutionDoesNotExist", false},
		{"describe execution by a state machine ARN", describe(sm, ""), "InvalidArn", false},
		{"describe with unknown includedData", describe(running, "SOME_DATA"), "ValidationException", true},
		{"history of unknown execution", history(unknownExecution, 0), "ExecutionDoesNotExist", false},
		{"history page over 1000", history(running, 1001), "ValidationException", true},
		{"history by malformed ARN", history("execution:msg-1", 0), "InvalidArn", false},
		{"list unknown state machine", list(unknownMachine, "", 0), "StateMachineDoesNotExist", false},
		{"list with unknown status", list(sm, "STUCK", 0), "ValidationException", false},
		{"list page over 1000", list(sm, "", 1001), "ValidationException", false},
		{"stop unknown execution", stop(unknownExecution, "", ""), "ExecutionDoesNotExist", false},
		{"stop by malformed ARN", stop("msg-1", "", ""), "InvalidArn", false},
		{"stop with error over 256 characters", stop(running, strings.Repeat("e", 257), ""), "ValidationException", false},
		{"stop with cause over 32768 characters", stop(running, "", strings.Repeat("c", 32769)), "ValidationException", false},
		{"state machine of unknown execution", machineOf(unknownExecution, ""), "ExecutionDoesNotExist", false},
		{"state machine of a state machine ARN", machineOf(sm, ""), "InvalidArn", false},
		{"state machine of execution with unknown includedData", machineOf(running, "SOME_DATA"), "ValidationException", true},
		{"list state machines page over 1000", listMachines(1001, ""), "ValidationException", true},
		{"list state machines with a foreign token", listMachines(0, "not-a-token"), "InvalidToken", false},
		{"validate with unknown severity", validate(cooldownDef, "", "FATAL", 0), "ValidationException", false},
		{"validate with over 100 results", validate(cooldownDef, "", "", 101), "ValidationException", false},
		{"validate a definition over 1 MiB characters", validate(`"`+strings.Repeat("x", 1<<20)+`"`, "", "", 0), "ValidationException", false},
		{"tags of unknown state machine", listTags(unknownMachine), "ResourceNotFound", false},
		{"tags of malformed ARN", listTags("cooldown"), "InvalidArn", false},
		{"tags of an execution", listTags(running), "InvalidArn", false},
		{"tag unknown state machine", tag(unknownMachine, sfntypes.Tag{Key: aws.String("team"), Value: aws.String("ops")}), "ResourceNotFound", false},
		{"tag over 50 tags", tag(sm, manyTags...), "TooManyTags", false},
		{"tag key with #", tag(sm, badTag), "ValidationException", true},
		{"tag without a key", tag(sm, sfntypes.Tag{Value: aws.String("ops")}), "ValidationException", true},
		{"tag key over 128 characters", tag(sm, sfntypes.Tag{Key: aws.String(strings.Repeat("k", 129))}), "ValidationException", true},
		{"tag value over 256 characters", tag(sm, sfntypes.Tag{Key: aws.String("k"), Value: aws.String(strings.Repeat("v", 257))}), "ValidationException", true},
		{"untag unknown state machine", untag(unknownMachine), "ResourceNotFound", false},
		{"create with over 50 tags", createTagged("tagged", manyTags), "TooManyTags", false},
		{"create with an invalid tag", createTagged("tagged", []sfntypes.Tag{badTag}), "ValidationException", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireAPIError(t, tt.call(context.Background()), tt.code, !tt.generic)
		})
	}

	t.Run("PENDING_REDRIVE lists nothing", func(t *testing.T) {
		out, err := v.client.ListExecutions(context.Background(), &sfn.ListExecutionsInput{
			StateMachineArn: aws.String(sm), StatusFilter: sfntypes.ExecutionStatusPendingRedrive,
		})
		require.NoError(t, err)
		assert.Empty(t, out.Executions)
	})
	t.Run("ResourceNotFound and TooManyTags name the resource", func(t *testing.T) {
		var notFound *sfntypes.ResourceNotFound
		require.ErrorAs(t, listTags(unknownMachine)(context.Background()), &notFound)
		assert.Equal(t, unknownMachine, aws.ToString(notFound.ResourceName))
		var tooMany *sfntypes.TooManyTags
		require.ErrorAs(t, tag(sm, manyTags...)(context.Background()), &tooMany)
		assert.Equal(t, sm, aws.ToString(tooMany.ResourceName))
	})
	t.Run("failed calls changed nothing", func(t *testing.T) {
		got, err := v.client.DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(running)})
		require.NoError(t, err)
		assert.Equal(t, sfntypes.ExecutionStatusRunning, got.Status)
		out, err := v.client.ListExecutions(context.Background(), &sfn.ListExecutionsInput{StateMachineArn: aws.String(sm)})
		require.NoError(t, err)
		assert.Len(t, out.Executions, 1)
		machines, err := v.client.ListStateMachines(context.Background(), &sfn.ListStateMachinesInput{})
		require.NoError(t, err)
		require.Len(t, machines.StateMachines, 1, "no state machine was created")
		tags, err := v.client.ListTagsForResource(context.Background(), &sfn.ListTagsForResourceInput{ResourceArn: aws.String(sm)})
		require.NoError(t, err)
		assert.Empty(t, tags.Tags)
	})
}

// Requests the SDK would never send: the wire-level checks of the API.
func TestRawRequestErrors(t *testing.T) {
	v := newEnv(t)
	tests := []struct {
		name, method, path, target, body string
		status                           int
		code, message                    string
	}{
		{"no target", http.MethodPost, "/", "", `{}`, 400, "UnknownOperationException", "X-Amz-Target"},
		{"operation not served", http.MethodPost, "/", "AWSStepFunctions.DeleteStateMachine", `{}`, 400, "UnknownOperationException", "DeleteStateMachine"},
		{"another service", http.MethodPost, "/", "DynamoDB_20120810.StartExecution", `{}`, 400, "UnknownOperationException", "DynamoDB_20120810"},
		{"GET", http.MethodGet, "/", "AWSStepFunctions.ListExecutions", ``, 400, "UnknownOperationException", "GET"},
		{"another path", http.MethodPost, "/2016-11-23/executions", "AWSStepFunctions.StartExecution", `{}`, 400, "UnknownOperationException", "/2016-11-23/executions"},
		{"missing stateMachineArn", http.MethodPost, "/", "AWSStepFunctions.StartExecution", `{"name":"x"}`, 400, "ValidationException", "'stateMachineArn'"},
		{"missing definition", http.MethodPost, "/", "AWSStepFunctions.CreateStateMachine", `{"name":"x","roleArn":"` + roleARN + `"}`, 400, "ValidationException", "'definition'"},
		{"missing roleArn", http.MethodPost, "/", "AWSStepFunctions.CreateStateMachine", `{"name":"x","definition":"{}"}`, 400, "ValidationException", "'roleArn'"},
		{"missing executionArn in an empty body", http.MethodPost, "/", "AWSStepFunctions.DescribeExecution", ``, 400, "ValidationException", "'executionArn'"},
		{"missing executionArn to stop", http.MethodPost, "/", "AWSStepFunctions.StopExecution", `{}`, 400, "ValidationException", "'executionArn'"},
		{"missing executionArn for history", http.MethodPost, "/", "AWSStepFunctions.GetExecutionHistory", `{}`, 400, "ValidationException", "'executionArn'"},
		{"missing stateMachineArn to list", http.MethodPost, "/", "AWSStepFunctions.ListExecutions", `{}`, 400, "ValidationException", "'stateMachineArn'"},
		{"missing stateMachineArn to describe", http.MethodPost, "/", "AWSStepFunctions.DescribeStateMachine", `{}`, 400, "ValidationException", "'stateMachineArn'"},
		{"member of the wrong type", http.MethodPost, "/", "AWSStepFunctions.DescribeExecution", `{"executionArn":5}`, 400, "SerializationException", `"executionArn"`},
		{"page size of the wrong type", http.MethodPost, "/", "AWSStepFunctions.ListExecutions", `{"stateMachineArn":"a","maxResults":"ten"}`, 400, "SerializationException", `"maxResults"`},
		{"malformed JSON", http.MethodPost, "/", "AWSStepFunctions.StartExecution", `{"stateMachineArn":`, 400, "SerializationException", "not valid JSON"},
		{"two JSON documents", http.MethodPost, "/", "AWSStepFunctions.StartExecution", `{}{}`, 400, "SerializationException", "after the JSON object"},
		{"unsupported member", http.MethodPost, "/", "AWSStepFunctions.CreateStateMachine", `{"name":"x","definition":"{}","roleArn":"` + roleARN + `","publish":true}`, 400, "ValidationException", `"publish"`},
		{"missing executionArn for its state machine", http.MethodPost, "/", "AWSStepFunctions.DescribeStateMachineForExecution", `{}`, 400, "ValidationException", "'executionArn'"},
		{"missing definition to validate", http.MethodPost, "/", "AWSStepFunctions.ValidateStateMachineDefinition", `{}`, 400, "ValidationException", "'definition'"},
		{"missing resourceArn to list tags", http.MethodPost, "/", "AWSStepFunctions.ListTagsForResource", `{}`, 400, "ValidationException", "'resourceArn'"},
		{"missing tags", http.MethodPost, "/", "AWSStepFunctions.TagResource", `{"resourceArn":"a"}`, 400, "ValidationException", "'tags'"},
		{"missing tagKeys", http.MethodPost, "/", "AWSStepFunctions.UntagResource", `{"resourceArn":"a"}`, 400, "ValidationException", "'tagKeys'"},
		{"tag of the wrong type", http.MethodPost, "/", "AWSStepFunctions.TagResource", `{"resourceArn":"a","tags":{"k":"v"}}`, 400, "SerializationException", `"tags"`},
		{"missing taskToken", http.MethodPost, "/", "AWSStepFunctions.SendTaskHeartbeat", `{}`, 400, "ValidationException", "'taskToken'"},
		{"missing output", http.MethodPost, "/", "AWSStepFunctions.SendTaskSuccess", `{"taskToken":"t"}`, 400, "ValidationException", "'output'"},
		{"body over 2 MiB", http.MethodPost, "/", "AWSStepFunctions.StartExecution", `{"input":"` + strings.Repeat("x", 2<<20) + `"}`, 400, "ValidationException", "over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, v.url+tt.path, strings.NewReader(tt.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			if tt.target != "" {
				req.Header.Set("X-Amz-Target", tt.target)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Equal(t, "application/x-amz-json-1.0", resp.Header.Get("Content-Type"))
			var body struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			assert.Equal(t, tt.code, body.Type)
			assert.Contains(t, body.Message, tt.message)
		})
	}
}
