package continuer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/redrive/redrive/message"
)

// StartExecutionAPI is the one Step Functions call the task makes, with
// the SDK's signature so *sfn.Client satisfies it.
type StartExecutionAPI interface {
	StartExecution(ctx context.Context, params *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

var _ StartExecutionAPI = (*sfn.Client)(nil)

// Input is the Continue state's payload.
type Input struct {
	// Document is the running execution's document (next is CONTINUE).
	Document message.Document `json:"document"`
	// ExecutionARN is $$.Execution.Id, the running execution.
	ExecutionARN string `json:"executionArn"`
}

// Output names the execution the redrive continues in.
type Output struct {
	// ExecutionARN is the new execution.
	ExecutionARN string `json:"executionArn"`
}

// Handler is the Continue task.
type Handler struct {
	// SFN starts the new execution.
	SFN StartExecutionAPI
	// Logger logs each continuation.
	Logger *slog.Logger
}

// Handle starts the next execution of in's redrive and returns its ARN. An
// invalid document or execution ARN, or a StartExecution error, is a
// *ContinueFailed for the state machine to retry (and finally park the
// message).
// ExecutionAlreadyExists means a retried Continue already started it: the
// task succeeds with that execution's ARN.
func (h *Handler) Handle(ctx context.Context, in Input) (Output, error) {
	current, err := parseExecutionARN(in.ExecutionARN)
	if err != nil {
		return Output{}, failed("read the execution ARN", err)
	}
	if err := in.Document.Validate(); err != nil {
		return Output{}, failed("check the document of "+in.ExecutionARN, err)
	}
	next := nextDocument(in.Document)
	input, err := next.Input()
	if err != nil {
		return Output{}, failed(fmt.Sprintf("encode the document of %q", next.OriginID), err)
	}
	name := next.ExecutionName()
	out, err := h.SFN.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(current.stateMachine()),
		Name:            aws.String(name),
		Input:           aws.String(string(input)),
	})
	var arn string
	_, retried := errors.AsType[*sfntypes.ExecutionAlreadyExists](err)
	switch {
	case retried:
		arn = current.sibling(name)
	case err != nil:
		return Output{}, failed(fmt.Sprintf("start %s of %s", name, current.stateMachine()), err)
	default:
		arn = aws.ToString(out.ExecutionArn)
	}
	h.Logger.InfoContext(ctx, "redrive continued",
		slog.String("originId", next.OriginID),
		slog.Int("attempt", next.Attempt),
		slog.Int("continuation", next.Continuation),
		slog.String("from", in.ExecutionARN),
		slog.String("executionArn", arn),
		slog.Bool("alreadyStarted", retried),
	)
	return Output{ExecutionARN: arn}, nil
}

// nextDocument is the input of the execution that continues doc's: one
// more continuation, no cycles yet, and none of the last Attempt's result
// (an execution's input carries no decision).
func nextDocument(doc message.Document) message.Document {
	next := doc
	next.Continuation++
	next.Cycles = 0
	next.Next = ""
	next.WaitSeconds = 0
	next.Decision = ""
	next.Outcome = ""
	next.BreakerState = ""
	next.ParkReason = ""
	next.Failure = nil
	return next
}
