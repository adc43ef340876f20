package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redrive/redrive/park/replay"
)

// CommandReplay moves matching parked messages back into redrive
// (park/replay), as `redrive replay` does, within one invocation.
const CommandReplay = "replay"

// ReplayRequest is a replay command's "replay":
//
//	{"filter": {"breaker": "orders", "reason": "exhausted", "body": ["/tenant=acme"]}, "dryRun": true, "rate": 10}
//	{"id": "ops-1", "resume": true}
type ReplayRequest struct {
	// ID names the replay; default the execution's name. With Resume, the
	// replay to carry on.
	ID string `json:"id,omitempty"`
	// Resume carries on replay ID with its recorded filter and rate.
	Resume bool `json:"resume,omitempty"`
	// Filter selects the parked messages (replay.Filter's JSON; body
	// fields as "/pointer=value").
	Filter replay.Filter `json:"filter"`
	// DryRun counts what would move, moving nothing.
	DryRun bool `json:"dryRun,omitempty"`
	// Rate bounds the sends, messages per second; 0 is replay.DefaultRate.
	Rate float64 `json:"rate,omitempty"`
}

// ReplayOutput is what a replay command did.
type ReplayOutput struct {
	// Record is the replay's record as the run left it: who, when, what
	// filter, counts over every run, status.
	Record replay.Entry `json:"record"`
	// Counts are this run's.
	Counts replay.Counts `json:"counts"`
	// Groups are the messages moved (a dry run: that would move), by
	// breaker key, reason class and error type.
	Groups []replay.Group `json:"groups"`
	// Next, when the run stopped before the lot's end (the invocation's
	// time ran out, or a call failed), is the input that carries it on.
	Next *Request `json:"next,omitempty"`
	// Error says why the run stopped early.
	Error string `json:"error,omitempty"`
}

// replayMargin is the part of the invocation's time a replay leaves for
// what comes after it stops: making the messages it saw visible again and
// recording how it ended.
const replayMargin = 35 * time.Second

// handleReplay runs a replay command until the lot's end or until the
// invocation's time is nearly up; a replay stopped early is recorded as
// interrupted and the output gives the input that resumes it.
func (h *Handler) handleReplay(ctx context.Context, in Input) (Output, error) {
	r := in.Request
	var problems []Problem
	fail := func(field, problem string) { problems = append(problems, Problem{Field: field, Problem: problem}) }
	problems = append(problems, r.problems...)
	for field, given := range map[string]bool{"breaker": r.Breaker != "", "rule": r.Rule != nil, "id": r.ID != "", "until": r.Until != ""} {
		if given {
			fail(field, "not for replay (its options go in \"replay\")")
		}
	}
	plan := replay.Plan{Actor: in.actor()}
	if r.Replay == nil {
		fail("replay", `required: e.g. {"filter": {"reason": "exhausted"}, "dryRun": true}`)
	} else {
		plan.ID, plan.Resume, plan.Filter, plan.DryRun, plan.Rate = r.Replay.ID, r.Replay.Resume, r.Replay.Filter, r.Replay.DryRun, r.Replay.Rate
		if plan.ID == "" && !plan.Resume {
			plan.ID = in.ExecutionName
		}
		decoded := !slices.ContainsFunc(problems, func(p Problem) bool { return p.Field == "replay" })
		if err := plan.Check(); err != nil && decoded {
			fail("replay", strings.TrimPrefix(err.Error(), "replay: "))
		}
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return Output{}, &InvalidCommand{Problems: problems}
	}
	if h.Replayer == nil {
		return Output{}, errors.New("admin: replay: not configured: set PARKING_LOT_URL and DLQ_URL")
	}
	run := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		run, cancel = context.WithDeadline(ctx, deadline.Add(-replayMargin))
		defer cancel()
	}
	res, err := h.Replayer.Run(run, plan)
	if err != nil && res.Entry.ID == "" {
		return Output{}, fmt.Errorf("admin: replay: %w", err) // refused before it began: nothing recorded
	}
	out := &ReplayOutput{Record: res.Entry, Counts: res.Counts, Groups: res.Groups}
	if err != nil {
		out.Error = err.Error()
		if !plan.DryRun {
			out.Next = &Request{Command: CommandReplay, Replay: &ReplayRequest{ID: res.Entry.ID, Resume: true}}
		}
	}
	h.Logger.InfoContext(ctx, "replay command", "replay", res.Entry.ID, "actor", plan.Actor, "filter", res.Entry.Filter.String(),
		"dryRun", plan.DryRun, "moved", res.Counts.Moved, "matched", res.Counts.Matched, "duplicates", res.Counts.Duplicates, "reparked", res.Counts.Reparked, "status", res.Entry.Status, "error", out.Error)
	return Output{Command: CommandReplay, Changed: res.Counts.Moved > 0, Replay: out}, nil
}
