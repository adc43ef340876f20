package sfnapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/redrive/redrive/emulate/executor"
)

// Step Functions' limits on StopExecution's members and on an execution's
// input (in UTF-8 bytes).
const (
	maxErrorLength = 256
	maxCauseLength = 32768
	maxInputBytes  = 256 << 10
)

type startExecutionInput struct {
	StateMachineArn string  `json:"stateMachineArn"`
	Name            string  `json:"name"`
	Input           *string `json:"input"`
	TraceHeader     string  `json:"traceHeader"` // accepted; there is no X-Ray locally
}

type startExecutionOutput struct {
	ExecutionArn string    `json:"executionArn"`
	StartDate    epochTime `json:"startDate"`
}

func (s *server) startExecution(ctx context.Context, in *startExecutionInput) (startExecutionOutput, error) {
	if err := required("stateMachineArn", in.StateMachineArn); err != nil {
		return startExecutionOutput{}, err
	}
	input := "{}"
	if in.Input != nil {
		input = *in.Input
	}
	if err := atMost("input", len(input), maxInputBytes); err != nil {
		return startExecutionOutput{}, err
	}
	ex, err := s.e.StartExecution(ctx, in.StateMachineArn, in.Name, input)
	if err != nil {
		return startExecutionOutput{}, err
	}
	return startExecutionOutput{ExecutionArn: ex.ARN, StartDate: epochTime(ex.StartDate)}, nil
}

// executionArnInput is the request of the operations on one execution.
type executionArnInput struct {
	ExecutionArn string `json:"executionArn"`
	IncludedData string `json:"includedData"`
}

// describeExecutionOutput is an execution's list item (its members come
// first, in the same order) followed by its data and outcome.
type describeExecutionOutput struct {
	executionListItem
	Input         *string      `json:"input,omitempty"`
	InputDetails  dataDetails  `json:"inputDetails"`
	Output        *string      `json:"output,omitempty"`
	OutputDetails *dataDetails `json:"outputDetails,omitempty"`
	Error         string       `json:"error,omitempty"`
	Cause         string       `json:"cause,omitempty"`
}

// dataDetails says whether input or output data is included.
type dataDetails struct {
	Included bool `json:"included"`
}

func (s *server) describeExecution(ctx context.Context, in *executionArnInput) (describeExecutionOutput, error) {
	if err := required("executionArn", in.ExecutionArn); err != nil {
		return describeExecutionOutput{}, err
	}
	if err := notExpress("DescribeExecution", in.ExecutionArn); err != nil {
		return describeExecutionOutput{}, err
	}
	withData, err := includeData(in.IncludedData)
	if err != nil {
		return describeExecutionOutput{}, err
	}
	ex, err := s.e.DescribeExecution(ctx, in.ExecutionArn)
	if err != nil {
		return describeExecutionOutput{}, err
	}
	out := describeExecutionOutput{
		executionListItem: listItem(ex),
		InputDetails:      dataDetails{Included: withData},
		Error:             ex.Error,
		Cause:             ex.Cause,
	}
	if withData {
		out.Input = rawString(ex.Input)
	}
	if ex.Status == executor.Succeeded {
		out.OutputDetails = &dataDetails{Included: withData}
		if withData {
			out.Output = rawString(ex.Output)
		}
	}
	return out, nil
}

// includeData reads DescribeExecution's and DescribeStateMachine's
// includedData member: whether to include the data, not only metadata.
func includeData(includedData string) (bool, error) {
	switch includedData {
	case "", "ALL_DATA":
		return true, nil
	case "METADATA_ONLY":
		return false, nil
	}
	return false, validation("includedData", "Member must satisfy enum value set: [ALL_DATA, METADATA_ONLY]")
}

// rawString is JSON data as the string member the API carries it in.
func rawString(data json.RawMessage) *string {
	s := string(data)
	return &s
}

type stopExecutionInput struct {
	ExecutionArn string `json:"executionArn"`
	Error        string `json:"error"`
	Cause        string `json:"cause"`
}

type stopExecutionOutput struct {
	StopDate epochTime `json:"stopDate"`
}

func (s *server) stopExecution(ctx context.Context, in *stopExecutionInput) (stopExecutionOutput, error) {
	if err := required("executionArn", in.ExecutionArn); err != nil {
		return stopExecutionOutput{}, err
	}
	if err := atMost("error", utf8.RuneCountInString(in.Error), maxErrorLength); err != nil {
		return stopExecutionOutput{}, err
	}
	if err := atMost("cause", utf8.RuneCountInString(in.Cause), maxCauseLength); err != nil {
		return stopExecutionOutput{}, err
	}
	ex, err := s.e.StopExecution(ctx, in.ExecutionArn, in.Error, in.Cause)
	if err != nil {
		return stopExecutionOutput{}, err
	}
	return stopExecutionOutput{StopDate: epochTime(ex.StopDate)}, nil
}

type listExecutionsInput struct {
	StateMachineArn string `json:"stateMachineArn"`
	StatusFilter    string `json:"statusFilter"`
	MaxResults      int32  `json:"maxResults"`
	NextToken       string `json:"nextToken"`
}

type listExecutionsOutput struct {
	Executions []executionListItem `json:"executions"`
	NextToken  string              `json:"nextToken,omitempty"`
}

type executionListItem struct {
	ExecutionArn    string          `json:"executionArn"`
	StateMachineArn string          `json:"stateMachineArn"`
	Name            string          `json:"name"`
	Status          executor.Status `json:"status"`
	StartDate       epochTime       `json:"startDate"`
	StopDate        *epochTime      `json:"stopDate,omitempty"`
}

func (s *server) listExecutions(ctx context.Context, in *listExecutionsInput) (listExecutionsOutput, error) {
	if err := required("stateMachineArn", in.StateMachineArn); err != nil {
		return listExecutionsOutput{}, err
	}
	status := executor.Status(in.StatusFilter)
	switch status {
	// PENDING_REDRIVE is valid, but no local execution is ever redriven.
	case "", executor.Running, executor.Succeeded, executor.Failed, executor.TimedOut, executor.Aborted, "PENDING_REDRIVE":
	default:
		return listExecutionsOutput{}, validation("statusFilter", "Member must satisfy enum value set: [RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED, PENDING_REDRIVE]")
	}
	// Page over all executions and filter here, so that a page boundary
	// survives the status change of the execution it is at.
	all, err := s.e.ListExecutions(ctx, in.StateMachineArn, "")
	if err != nil {
		return listExecutionsOutput{}, err
	}
	items, next, err := page(all,
		func(ex executor.Execution) string { return ex.ARN },
		func(ex executor.Execution) bool { return status == "" || ex.Status == status },
		in.StateMachineArn+"|"+in.StatusFilter, in.NextToken, in.MaxResults)
	if err != nil {
		return listExecutionsOutput{}, err
	}
	out := listExecutionsOutput{Executions: make([]executionListItem, len(items)), NextToken: next}
	for i, ex := range items {
		out.Executions[i] = listItem(ex)
	}
	return out, nil
}

// listItem is ex's metadata as ListExecutions and DescribeExecution give it.
func listItem(ex executor.Execution) executionListItem {
	return executionListItem{
		ExecutionArn:    ex.ARN,
		StateMachineArn: ex.StateMachineARN,
		Name:            ex.Name,
		Status:          ex.Status,
		StartDate:       epochTime(ex.StartDate),
		StopDate:        optionalTime(ex.StopDate),
	}
}

// notExpress refuses op on an Express execution, which AWS records only
// in its state machine's logs.
func notExpress(op, arn string) error {
	if parts := strings.Split(arn, ":"); len(parts) > 5 && parts[5] == "express" {
		return &apiError{code: "InvalidArn", message: fmt.Sprintf("Invalid Arn: '%s': %s does not support EXPRESS executions", arn, op)}
	}
	return nil
}
