package sfnapi

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/redrive/redrive/emulate/executor"
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
	Tags       []tag  `json:"tags"`
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
	if err := checkType(in.Type); err != nil {
		return createStateMachineOutput{}, err
	}
	if err := atMost("definition", utf8.RuneCountInString(in.Definition), maxDefinitionLength); err != nil {
		return createStateMachineOutput{}, err
	}
	if !roleARNPattern.MatchString(in.RoleArn) {
		return createStateMachineOutput{}, &apiError{code: "InvalidArn", message: fmt.Sprintf("Invalid Arn: 'Resource type not valid in this context: %s' (roleArn must be an IAM role ARN)", in.RoleArn)}
	}
	if err := checkTags(in.Tags); err != nil {
		return createStateMachineOutput{}, err
	}
	tags, err := addTags(nil, in.Tags, "")
	if err != nil {
		return createStateMachineOutput{}, err
	}
	arn, err := s.e.CreateStateMachineOfType(ctx, in.Name, cmp.Or(executor.Type(in.Type), executor.Standard), in.Definition, in.RoleArn)
	if err != nil {
		return createStateMachineOutput{}, err
	}
	sm, err := s.e.DescribeStateMachine(ctx, arn)
	if err != nil {
		return createStateMachineOutput{}, fmt.Errorf("describe created state machine %s: %w", arn, err)
	}
	s.created(arn, tags)
	return createStateMachineOutput{StateMachineArn: arn, CreationDate: epochTime(sm.CreationDate)}, nil
}

// created records the tags of a state machine created through the API.
// Creating it again (idempotently) changes nothing: AWS ignores the tags
// of a CreateStateMachine that returns an existing state machine.
func (s *server) created(arn string, tags []tag) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, known := s.tags[arn]; !known {
		s.tags[arn] = tags
	}
}

// checkType checks the type member of CreateStateMachine and
// ValidateStateMachineDefinition: STANDARD, the default, or EXPRESS.
func checkType(typ string) error {
	switch executor.Type(typ) {
	case "", executor.Standard, executor.Express:
		return nil
	}
	return validation("type", "Member must satisfy enum value set: [STANDARD, EXPRESS]")
}

type describeStateMachineInput struct {
	StateMachineArn string `json:"stateMachineArn"`
	IncludedData    string `json:"includedData"`
}

// stateMachineDetails are the members DescribeStateMachine and
// DescribeStateMachineForExecution share.
type stateMachineDetails struct {
	StateMachineArn      string               `json:"stateMachineArn"`
	Name                 string               `json:"name"`
	Definition           string               `json:"definition"`
	RoleArn              string               `json:"roleArn"`
	LoggingConfiguration loggingConfiguration `json:"loggingConfiguration"`
	TracingConfiguration tracingConfiguration `json:"tracingConfiguration"`
}

type describeStateMachineOutput struct {
	stateMachineDetails
	Status       string    `json:"status"`
	Type         string    `json:"type"`
	CreationDate epochTime `json:"creationDate"`
}

// describeStateMachineForExecutionOutput is the execution's state
// machine: this executor never updates one, so it was last updated when
// it was created.
type describeStateMachineForExecutionOutput struct {
	stateMachineDetails
	UpdateDate epochTime `json:"updateDate"`
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
	return describeStateMachineOutput{
		stateMachineDetails: details(sm, withData),
		Status:              "ACTIVE",
		Type:                string(sm.Type),
		CreationDate:        epochTime(sm.CreationDate),
	}, nil
}

func (s *server) describeStateMachineForExecution(ctx context.Context, in *executionArnInput) (describeStateMachineForExecutionOutput, error) {
	if err := required("executionArn", in.ExecutionArn); err != nil {
		return describeStateMachineForExecutionOutput{}, err
	}
	withData, err := includeData(in.IncludedData)
	if err != nil {
		return describeStateMachineForExecutionOutput{}, err
	}
	ex, err := s.e.DescribeExecution(ctx, in.ExecutionArn)
	if err != nil {
		return describeStateMachineForExecutionOutput{}, err
	}
	sm, err := s.e.DescribeStateMachine(ctx, ex.StateMachineARN)
	if err != nil {
		return describeStateMachineForExecutionOutput{}, fmt.Errorf("describe state machine of execution %s: %w", ex.ARN, err)
	}
	return describeStateMachineForExecutionOutput{
		stateMachineDetails: details(sm, withData),
		UpdateDate:          epochTime(sm.CreationDate),
	}, nil
}

// details is sm as the describe operations give it; its definition is
// left out without withData (includedData METADATA_ONLY).
func details(sm executor.StateMachine, withData bool) stateMachineDetails {
	d := stateMachineDetails{
		StateMachineArn:      sm.ARN,
		Name:                 sm.Name,
		RoleArn:              sm.RoleARN,
		LoggingConfiguration: loggingConfiguration{Level: "OFF"},
	}
	if withData {
		d.Definition = sm.Definition
	}
	return d
}

type listStateMachinesInput struct {
	MaxResults int32  `json:"maxResults"`
	NextToken  string `json:"nextToken"`
}

type listStateMachinesOutput struct {
	StateMachines []stateMachineListItem `json:"stateMachines"`
	NextToken     string                 `json:"nextToken,omitempty"`
}

type stateMachineListItem struct {
	StateMachineArn string    `json:"stateMachineArn"`
	Name            string    `json:"name"`
	Type            string    `json:"type"`
	CreationDate    epochTime `json:"creationDate"`
}

// listStateMachines lists every state machine of the executor, oldest
// first (AWS documents no order).
func (s *server) listStateMachines(ctx context.Context, in *listStateMachinesInput) (listStateMachinesOutput, error) {
	items, next, err := page(s.e.StateMachines(),
		func(sm executor.StateMachine) string { return sm.ARN },
		func(executor.StateMachine) bool { return true },
		"stateMachines", in.NextToken, in.MaxResults)
	if err != nil {
		return listStateMachinesOutput{}, err
	}
	out := listStateMachinesOutput{StateMachines: make([]stateMachineListItem, len(items)), NextToken: next}
	for i, sm := range items {
		out.StateMachines[i] = stateMachineListItem{
			StateMachineArn: sm.ARN, Name: sm.Name, Type: string(sm.Type), CreationDate: epochTime(sm.CreationDate),
		}
	}
	return out, nil
}
