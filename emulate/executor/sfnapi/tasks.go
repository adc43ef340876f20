package sfnapi

import (
	"context"
	"unicode/utf8"
)

// maxTaskTokenLength is the taskToken member's length limit (the current
// API reference, https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html;
// older revisions said 1024, which the executor's tokens also fit).
const maxTaskTokenLength = 2048

type sendTaskSuccessInput struct {
	TaskToken string  `json:"taskToken"`
	Output    *string `json:"output"`
}

type sendTaskFailureInput struct {
	TaskToken string `json:"taskToken"`
	Error     string `json:"error"`
	Cause     string `json:"cause"`
}

type sendTaskHeartbeatInput struct {
	TaskToken string `json:"taskToken"`
}

// sendTaskOutput is the empty response of the SendTask* operations.
type sendTaskOutput struct{}

func (s *server) sendTaskSuccess(ctx context.Context, in *sendTaskSuccessInput) (sendTaskOutput, error) {
	if err := checkTaskToken(in.TaskToken); err != nil {
		return sendTaskOutput{}, err
	}
	if in.Output == nil {
		return sendTaskOutput{}, validation("output", "Member must not be null")
	}
	if err := atMost("output", len(*in.Output), maxInputBytes); err != nil {
		return sendTaskOutput{}, err
	}
	return sendTaskOutput{}, s.e.SendTaskSuccess(ctx, in.TaskToken, *in.Output)
}

func (s *server) sendTaskFailure(ctx context.Context, in *sendTaskFailureInput) (sendTaskOutput, error) {
	if err := checkTaskToken(in.TaskToken); err != nil {
		return sendTaskOutput{}, err
	}
	if err := atMost("error", utf8.RuneCountInString(in.Error), maxErrorLength); err != nil {
		return sendTaskOutput{}, err
	}
	if err := atMost("cause", utf8.RuneCountInString(in.Cause), maxCauseLength); err != nil {
		return sendTaskOutput{}, err
	}
	return sendTaskOutput{}, s.e.SendTaskFailure(ctx, in.TaskToken, in.Error, in.Cause)
}

func (s *server) sendTaskHeartbeat(ctx context.Context, in *sendTaskHeartbeatInput) (sendTaskOutput, error) {
	if err := checkTaskToken(in.TaskToken); err != nil {
		return sendTaskOutput{}, err
	}
	return sendTaskOutput{}, s.e.SendTaskHeartbeat(ctx, in.TaskToken)
}

// checkTaskToken validates the taskToken member: required, 1 to 2048
// characters.
func checkTaskToken(token string) error {
	if err := required("taskToken", token); err != nil {
		return err
	}
	return atMost("taskToken", utf8.RuneCountInString(token), maxTaskTokenLength)
}
