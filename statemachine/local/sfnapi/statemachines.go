package sfnapi

import (
	"context"
	"fmt"
	"regexp"
	"unicode/utf8"
)

// maxDefinitionLength is Step Functions' limit on a definition, in
// characters.
const maxDefinitionLength = 1 << 20

// roleARNPattern is an IAM role ARN, the only kind CreateStateMachine
// accepts as roleArn.
var roleARNPattern = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:iam::\d{12}:role/[\w+=,.@/-]{1,512}$`)

type createStateMachineInput struct {
	Name       string `json:"name"`
	Definition string `json:"definition"`
	RoleArn    string `json:"roleArn"`
	Type       string `json:"type"`
}

type createStateMachineOutput struct {
	StateMachineArn string    `json:"stateMachineArn"`
	CreationDate    epochTime `json:"creationDate"`
}

func (s *server) createStateMachine(ctx context.Context, in *createStateMachineInput) (createStateMachineOutput, error) {
	for _, m := range []struct{ member, value string }{{"name", in.Name}, {"definition", in.Definition}, {"roleArn", in.RoleArn}} {
		if err := required(m.member, m.value); err != nil {
			return createStateMachineOutput{}, err
		}
	}
	switch in.Type {
	case "", "STANDARD":
	case "EXPRESS":
		return createStateMachineOutput{}, validation("type", "the local executor runs STANDARD workflows only")
	default:
		return createStateMachineOutput{}, validation("type", "Member must satisfy enum value set: [STANDARD, EXPRESS]")
	}
	if err := atMost("definition", utf8.RuneCountInString(in.Definition), maxDefinitionLength); err != nil {
		return createStateMachineOutput{}, err
	}
	if !roleARNPattern.MatchString(in.RoleArn) {
		return createStateMachineOutput{}, &apiError{code: "InvalidArn", message: fmt.Sprintf("Invalid Arn: 'Resource type not valid in this context: %s' (roleArn must be an IAM role ARN)", in.RoleArn)}
	}
	arn, err := s.e.CreateStateMachine(ctx, in.Name, in.Definition, in.RoleArn)
	if err != nil {
		return createStateMachineOutput{}, err
	}
	sm, err := s.e.DescribeStateMachine(ctx, arn)
	if err != nil {
		return createStateMachineOutput{}, fmt.Errorf("describe created state machine %s: %w", arn, err)
	}
	return createStateMachineOutput{StateMachineArn: arn, CreationDate: epochTime(sm.CreationDate)}, nil
}

type describeStateMachineInput struct {
	StateMachineArn string `json:"stateMachineArn"`
	IncludedData    string `json:"includedData"`
}

type describeStateMachineOutput struct {
	StateMachineArn      string               `json:"stateMachineArn"`
	Name                 string               `json:"name"`
	Status               string               `json:"status"`
	Definition           string               `json:"definition"`
	RoleArn              string               `json:"roleArn"`
	Type                 string               `json:"type"`
	CreationDate         epochTime            `json:"creationDate"`
	LoggingConfiguration loggingConfiguration `json:"loggingConfiguration"`
	TracingConfiguration tracingConfiguration `json:"tracingConfiguration"`
}

// loggingConfiguration is what AWS reports for a state machine created
// without one: logging off.
type loggingConfiguration struct {
	Level                string `json:"level"`
	IncludeExecutionData bool   `json:"includeExecutionData"`
}

// tracingConfiguration is what AWS reports without X-Ray tracing.
type tracingConfiguration struct {
	Enabled bool `json:"enabled"`
}

func (s *server) describeStateMachine(ctx context.Context, in *describeStateMachineInput) (describeStateMachineOutput, error) {
	if err := required("stateMachineArn", in.StateMachineArn); err != nil {
		return describeStateMachineOutput{}, err
	}
	withData, err := includeData(in.IncludedData)
	if err != nil {
		return describeStateMachineOutput{}, err
	}
	sm, err := s.e.DescribeStateMachine(ctx, in.StateMachineArn)
	if err != nil {
		return describeStateMachineOutput{}, err
	}
	out := describeStateMachineOutput{
		StateMachineArn:      sm.ARN,
		Name:                 sm.Name,
		Status:               "ACTIVE",
		RoleArn:              sm.RoleARN,
		Type:                 "STANDARD",
		CreationDate:         epochTime(sm.CreationDate),
		LoggingConfiguration: loggingConfiguration{Level: "OFF"},
	}
	if withData {
		out.Definition = sm.Definition
	}
	return out, nil
}
