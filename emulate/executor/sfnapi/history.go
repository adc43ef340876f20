package sfnapi

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redrive/redrive/emulate/executor"
)

type getExecutionHistoryInput struct {
	ExecutionArn         string `json:"executionArn"`
	IncludeExecutionData *bool  `json:"includeExecutionData"`
	MaxResults           int32  `json:"maxResults"`
	NextToken            string `json:"nextToken"`
	ReverseOrder         bool   `json:"reverseOrder"`
}

type getExecutionHistoryOutput struct {
	Events    []json.Marshaler `json:"events"`
	NextToken string           `json:"nextToken,omitempty"`
}

func (s *server) getExecutionHistory(ctx context.Context, in *getExecutionHistoryInput) (getExecutionHistoryOutput, error) {
	if err := required("executionArn", in.ExecutionArn); err != nil {
		return getExecutionHistoryOutput{}, err
	}
	if err := notExpress("GetExecutionHistory", in.ExecutionArn); err != nil {
		return getExecutionHistoryOutput{}, err
	}
	events, err := s.e.History(ctx, in.ExecutionArn)
	if err != nil {
		return getExecutionHistoryOutput{}, err
	}
	order := "forward"
	if in.ReverseOrder {
		events = slices.Clone(events)
		slices.Reverse(events)
		order = "reverse"
	}
	items, next, err := page(events,
		func(ev executor.Event) string { return strconv.FormatInt(ev.ID, 10) },
		func(executor.Event) bool { return true },
		in.ExecutionArn+"|"+order, in.NextToken, in.MaxResults)
	if err != nil {
		return getExecutionHistoryOutput{}, err
	}
	withData := in.IncludeExecutionData == nil || *in.IncludeExecutionData
	out := getExecutionHistoryOutput{Events: make([]json.Marshaler, len(items)), NextToken: next}
	for i, ev := range items {
		out.Events[i] = ev
		if !withData {
			out.Events[i] = withoutData(ev)
		}
	}
	return out, nil
}

// withoutData is a history event rendered without the input and output in
// its details (includeExecutionData false).
type withoutData executor.Event

func (ev withoutData) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(executor.Event(ev))
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, fmt.Errorf("event %d: %w", ev.ID, err)
	}
	for name, raw := range members {
		if !strings.HasSuffix(name, "EventDetails") {
			continue
		}
		var details map[string]json.RawMessage
		if err := json.Unmarshal(raw, &details); err != nil {
			return nil, fmt.Errorf("event %d %s: %w", ev.ID, name, err)
		}
		delete(details, "input")
		delete(details, "output")
		if members[name], err = json.Marshal(details); err != nil {
			return nil, fmt.Errorf("event %d %s: %w", ev.ID, name, err)
		}
	}
	return json.Marshal(members)
}
