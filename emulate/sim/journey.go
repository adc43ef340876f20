package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/message"
)

// Sample journeys: a few messages followed step by step through the
// execution that settled them, as its history recorded it, for the
// report (Outcome.Journeys).
//
// The executor keeps histories only for a sample (keptHistories running,
// the keptHistories that finished last), so a journey must be read while
// its history is still there, and reading must cost little at a million
// messages. A journeyPicker therefore never lists executions: it sees each
// one as it ends (the executor's Finished), keeps for each kind of journey
// (journeyKinds) the one execution it prefers so far, and reads a history
// only for that execution: when the run ends, or earlier if that many
// other executions have ended since that its history would soon be
// evicted. Each kind's preferred execution changes only for a better one
// (which ends later), and one is read early only once keep/2 others ended
// after it, so a kind's early reads are more than keep/2 executions
// apart: a run makes a few History calls per kind, never more than
// 2×(executions ended)/keep + 3 (with the end's and a fallback's). An
// execution whose history the executor did not record (it started while
// keptHistories others were recording) or already evicted is passed over
// for the next one preferred; the kind falls back to the last execution it
// took when none was read.

// maxJourneySteps bounds a journey's steps: a longer one keeps its first
// and last halves, with one Skipped step standing for the middle.
const maxJourneySteps = 40

// maxStepDetail bounds a step's detail, in characters.
const maxStepDetail = 160

// Journey is one message's way through a strategy: the steps of the
// Step Functions execution that settled it (for a Redrive message that
// continued as new executions, the last of them), read from the
// executor's history when the run ended or, to beat its eviction, while
// it ran.
type Journey struct {
	// Why says why this message is shown, e.g. "the first message to
	// arrive"; two reasons picking the same message are joined by "; ".
	Why string
	// Message is the scenario's id of the message (e.g. "m-000001"), or
	// "" when the execution could not be mapped to one.
	Message string
	// Execution is the execution's name.
	Execution string
	// Outcome is how the execution ended: "delivered", "parked", or its
	// status in lower case ("failed", "timed_out", "aborted").
	Outcome string
	// Start and Stop are when the execution started and ended, as
	// offsets from Epoch.
	Start, Stop time.Duration
	// Events is the length of the execution's history.
	Events int
	// Steps are the history's steps worth showing (state entries, exits
	// that took time, task results and retries, the execution's start
	// and end), oldest first: at most maxJourneySteps of them, and when
	// there were more, one Skipped step in the middle standing for those
	// left out.
	Steps []Step
}

// Took is how long the execution ran.
func (j Journey) Took() time.Duration { return j.Stop - j.Start }

// Step is one step of a Journey.
type Step struct {
	// At is when it happened, as an offset from Epoch.
	At time.Duration
	// State is the state the execution was in (entered or left), "" for
	// the execution's own start and end.
	State string
	// Event says what happened: "execution started", "entered", "left",
	// "task succeeded", "task failed", "task timed out", "task retried",
	// "execution succeeded", "execution failed", ...
	Event string
	// Detail qualifies it: how long a state took or a retry waited, the
	// error and its cause, or what the redrive Attempt decided.
	Detail string
	// Skipped, when not zero, makes this step stand for that many steps
	// left out of a long journey; its other fields are zero.
	Skipped int
}

// StrategyJourneys are the journeys of one strategy, for the report.
type StrategyJourneys struct {
	Strategy string
	Journeys []Journey
}

// journeysOf are the journeys of r's strategies that have any, in the
// order of r's outcomes.
func journeysOf(r Result) []StrategyJourneys {
	var out []StrategyJourneys
	for _, o := range r.Outcomes {
		if len(o.Journeys) > 0 {
			out = append(out, StrategyJourneys{Strategy: o.Strategy, Journeys: o.Journeys})
		}
	}
	return out
}

// Outcomes of the executions a journeyPicker is offered.
const (
	journeyDelivered = "delivered"
	journeyParked    = "parked"
)

// journeyCandidate is an execution that ended, as a journeyPicker keeps
// it: what it needs to prefer one and to read its history.
type journeyCandidate struct {
	arn, name   string
	outcome     string
	start, stop time.Time
	first       bool // it carried the scenario's first message
	index       int  // how many executions had ended with it
}

// took is how long the execution ran.
func (c journeyCandidate) took() time.Duration { return c.stop.Sub(c.start) }

// journeyKind is one reason to show a message.
type journeyKind struct {
	// why labels the journey it picks; lastWhy the fallback, the last
	// execution it took, when none it preferred could be read ("": no
	// fallback).
	why, lastWhy string
	// takes says whether an execution is of this kind.
	takes func(c journeyCandidate) bool
	// better says whether c is preferred to than, which ended earlier.
	better func(c, than journeyCandidate) bool
}

// journeyKinds are the journeys a report shows for a strategy, in order:
// the first message, the delivered message whose execution took longest
// (it waited longest, through cooldowns or the waiting room), and the
// parked one that took longest. Ties keep the one that ended first.
var journeyKinds = []journeyKind{
	{
		why:    "the first message to arrive",
		takes:  func(c journeyCandidate) bool { return c.first },
		better: func(c, than journeyCandidate) bool { return true },
	},
	{
		why:     "the delivered message that took longest",
		lastWhy: "the last message delivered",
		takes:   func(c journeyCandidate) bool { return c.outcome == journeyDelivered },
		better:  func(c, than journeyCandidate) bool { return c.took() > than.took() },
	},
	{
		why:     "the parked message that took longest",
		lastWhy: "the last message parked",
		takes:   func(c journeyCandidate) bool { return c.outcome == journeyParked },
		better:  func(c, than journeyCandidate) bool { return c.took() > than.took() },
	},
}

// journeySlot is a journeyPicker's state for one kind.
type journeySlot struct {
	kind journeyKind
	// pick is the execution preferred and not read yet (arn "" when
	// none): it beats shownBy.
	pick journeyCandidate
	// shown is the journey of shownBy, the preferred execution read so
	// far; nil when none was.
	shown   *Journey
	shownBy journeyCandidate
	// last is the last execution taken, the fallback.
	last journeyCandidate
}

// offer gives the slot an execution that ended; it reports whether the
// slot picked it.
func (s *journeySlot) offer(c journeyCandidate) bool {
	if !s.kind.takes(c) {
		return false
	}
	s.last = c
	than := s.pick
	if than.arn == "" {
		than = s.shownBy
	}
	if than.arn == "" || s.kind.better(c, than) {
		s.pick = c
		return true
	}
	return false
}

// settle records the read of c's history: j, or nil when it was not
// there. c is no longer the pick either way.
func (s *journeySlot) settle(c journeyCandidate, j *Journey) {
	if s.pick.arn == c.arn {
		s.pick = journeyCandidate{}
	}
	if j != nil && (s.shownBy.arn == "" || s.kind.better(c, s.shownBy)) {
		s.shown, s.shownBy = j, c
	}
}

// journeyPicker picks a strategy's sample journeys from the executions of
// its executor as they end (see the comment at the top of this file).
type journeyPicker struct {
	// keep is the executor's Options.FinishedHistories: a finished
	// execution's history is evicted once keep others finished after it
	// (0: never). retention is its Options.Retention: the whole execution
	// is evicted that long after it stopped (0: never).
	keep      int
	retention time.Duration

	mu        sync.Mutex
	exec      *executor.Executor
	isFirst   func(name string) bool // nil until known
	ended     int                    // executions of every state machine ended so far
	scheduled bool                   // an early read is on the timeline
	slots     []journeySlot
	reads     int   // History calls made
	err       error // the first history that failed to read for another reason than eviction
}

// newJourneyPicker returns a picker for an executor that keeps keep
// finished executions' histories, and every finished execution for
// retention after it stopped (0: for ever).
func newJourneyPicker(keep int, retention time.Duration) *journeyPicker {
	p := &journeyPicker{keep: keep, retention: retention}
	for _, k := range journeyKinds {
		p.slots = append(p.slots, journeySlot{kind: k})
	}
	return p
}

// attach sets the executor whose histories p reads, before it runs.
func (p *journeyPicker) attach(exec *executor.Executor) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exec = exec
}

// setFirst says which execution names carry the scenario's first message.
func (p *journeyPicker) setFirst(isFirst func(name string) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isFirst = isFirst
}

// finished sees an execution end, of any state machine of the executor
// (they all count towards its history bound); outcome is "" for one that
// settled no message (another state machine's, or one that continued as
// a new execution), else "delivered", "parked" or its status. It is
// called from the executor's Finished, which must not call the executor:
// it never reads a history there. The one call it makes, At to read the
// picks at risk in a moment, only queues an event on the timeline (under
// the timeline's own lock, as the executor itself does right after
// Finished for the execution ending, with that execution locked); the
// read runs as that event, at the same virtual instant, before the
// eviction that would drop the history (keep/2 executions away).
func (p *journeyPicker) finished(x executor.Execution, outcome string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended++
	if outcome != "" {
		c := journeyCandidate{arn: x.ARN, name: x.Name, outcome: outcome, start: x.StartDate, stop: x.StopDate, index: p.ended}
		c.first = p.isFirst != nil && p.isFirst(x.Name)
		picked := false
		for i := range p.slots {
			picked = p.slots[i].offer(c) || picked
		}
		if picked && p.retention > 0 && p.exec != nil {
			// Read it before the executor forgets it, unless a better
			// pick replaced it by then.
			p.exec.At(x.StopDate.Add(p.retention/2), p.readAtRisk)
		}
	}
	if p.scheduled || p.exec == nil {
		return
	}
	for _, s := range p.slots {
		if p.atRisk(s.pick, x.StopDate) {
			p.scheduled = true
			p.exec.At(x.StopDate, p.readAtRisk)
			return
		}
	}
}

// atRisk says whether c's history is to be read at now: half as many
// executions as the executor keeps ended after it, or half the
// executor's retention passed since it stopped. Call with p.mu held.
func (p *journeyPicker) atRisk(c journeyCandidate, now time.Time) bool {
	return c.arn != "" && (p.keep > 0 && p.ended-c.index >= p.keep/2 ||
		p.retention > 0 && !now.Before(c.stop.Add(p.retention/2)))
}

// readAtRisk reads the picks at risk of eviction, on the executor's
// timeline.
func (p *journeyPicker) readAtRisk(ctx context.Context) {
	p.mu.Lock()
	p.scheduled = false
	now := p.exec.Now()
	var due []journeyCandidate
	for _, s := range p.slots {
		if p.atRisk(s.pick, now) {
			due = append(due, s.pick)
		}
	}
	p.mu.Unlock()
	p.read(ctx, due)
}

// read reads the histories of cs (once per execution) and settles the
// slots with them.
func (p *journeyPicker) read(ctx context.Context, cs []journeyCandidate) {
	read := make([]*Journey, len(cs))
	for i, c := range cs {
		again := false
		for j := range i {
			if cs[j].arn == c.arn {
				read[i], again = read[j], true
				break
			}
		}
		if !again {
			read[i] = p.journey(ctx, c)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range cs {
		for k := range p.slots {
			if p.slots[k].pick.arn == c.arn || read[i] != nil && p.slots[k].kind.takes(c) {
				p.slots[k].settle(c, read[i])
			}
		}
	}
}

// journey reads c's history into a Journey (Message left for later), or
// nil when the executor does not have it.
func (p *journeyPicker) journey(ctx context.Context, c journeyCandidate) *Journey {
	p.mu.Lock()
	p.reads++
	p.mu.Unlock()
	h, err := p.exec.History(ctx, c.arn)
	if err != nil {
		if !errors.Is(err, executor.ErrHistoryNotRecorded) && !errors.Is(err, executor.ErrHistoryEvicted) &&
			!errors.Is(err, executor.ErrExecutionDoesNotExist) {
			p.mu.Lock()
			if p.err == nil {
				p.err = fmt.Errorf("read the history of %s: %w", c.name, err)
			}
			p.mu.Unlock()
		}
		return nil
	}
	j := journeyOf(h)
	j.Execution, j.Outcome = c.name, c.outcome
	j.Start, j.Stop = c.start.Sub(Epoch), c.stop.Sub(Epoch)
	return &j
}

// journeys reads the picks left (and, for a kind with none read, its
// fallback), and returns at most one journey per kind, in the kinds'
// order, one execution picked by two kinds shown once; messageID maps an
// execution's name to the scenario's message id ("" if none). Call it
// once the executor has stopped running, before it closes.
func (p *journeyPicker) journeys(ctx context.Context, messageID func(name string) string) ([]Journey, error) {
	p.mu.Lock()
	var picks []journeyCandidate
	for _, s := range p.slots {
		if s.pick.arn != "" {
			picks = append(picks, s.pick)
		}
	}
	p.mu.Unlock()
	p.read(ctx, picks)

	p.mu.Lock()
	var fallbacks []journeyCandidate
	for _, s := range p.slots {
		if s.shown == nil && s.kind.lastWhy != "" && s.last.arn != "" {
			fallbacks = append(fallbacks, s.last)
		}
	}
	p.mu.Unlock()
	fallback := make([]*Journey, len(fallbacks))
	for i, c := range fallbacks {
		fallback[i] = p.journey(ctx, c)
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	var out []Journey
	add := func(why string, j Journey) {
		for i := range out {
			if out[i].Execution == j.Execution {
				out[i].Why += "; " + why
				return
			}
		}
		j.Why, j.Message = why, messageID(j.Execution)
		out = append(out, j)
	}
	next := 0
	for _, s := range p.slots {
		switch {
		case s.shown != nil:
			add(s.kind.why, *s.shown)
		case s.kind.lastWhy != "" && s.last.arn != "":
			if j := fallback[next]; j != nil {
				add(s.kind.lastWhy, *j)
			}
			next++
		}
	}
	return out, nil
}

// journeyRow is an event of a history shown as a step.
type journeyRow struct {
	i       int           // the event's index
	entered int           // the index of the entry into its state, -1 if none
	took    time.Duration // for a state left, how long it took; for a retry, how long after the failure
}

// journeyOf turns a history into a Journey's Steps and Events. Only the
// events it shows (at most maxJourneySteps) are marshalled, so a long
// history costs one pass over its events.
func journeyOf(h []executor.Event) Journey {
	var rows []journeyRow
	entered, failed := -1, -1
	for i, ev := range h {
		typ := ev.Type
		switch {
		case typ == "ExecutionStarted", strings.HasPrefix(typ, "Execution"):
			rows = append(rows, journeyRow{i: i, entered: -1})
		case strings.HasSuffix(typ, "StateEntered"):
			entered, failed = i, -1
			if !strings.HasPrefix(typ, "Choice") {
				rows = append(rows, journeyRow{i: i, entered: i})
			}
		case strings.HasSuffix(typ, "StateExited"):
			if entered >= 0 && !strings.HasPrefix(typ, "Choice") {
				if took := ev.Timestamp.Sub(h[entered].Timestamp); took >= time.Second {
					rows = append(rows, journeyRow{i: i, entered: entered, took: took})
				}
			}
		case typ == "TaskScheduled", typ == "LambdaFunctionScheduled":
			if failed >= 0 {
				rows = append(rows, journeyRow{i: i, entered: entered, took: ev.Timestamp.Sub(h[failed].Timestamp)})
				failed = -1
			}
		case strings.HasSuffix(typ, "Failed"), strings.HasSuffix(typ, "TimedOut"):
			failed = i
			rows = append(rows, journeyRow{i: i, entered: entered})
		case strings.HasSuffix(typ, "Succeeded"):
			rows = append(rows, journeyRow{i: i, entered: entered})
		}
	}
	j := Journey{Events: len(h)}
	keep, skipped := rows, 0
	if len(rows) > maxJourneySteps {
		head := maxJourneySteps / 2
		tail := maxJourneySteps - head
		skipped = len(rows) - maxJourneySteps
		keep = append(append([]journeyRow(nil), rows[:head]...), rows[len(rows)-tail:]...)
	}
	names := map[int]string{}
	name := func(i int) string {
		if i < 0 {
			return ""
		}
		n, ok := names[i]
		if !ok {
			n = eventDetails(h[i]).Name
			names[i] = n
		}
		return n
	}
	for k, r := range keep {
		if skipped > 0 && k == maxJourneySteps/2 {
			j.Steps = append(j.Steps, Step{Skipped: skipped})
		}
		j.Steps = append(j.Steps, stepOf(h[r.i], r, name(r.entered)))
	}
	return j
}

// historyDetails is what a step shows of an event's details.
type historyDetails struct {
	Name   string `json:"name"`
	Error  string `json:"error"`
	Cause  string `json:"cause"`
	Output string `json:"output"`
}

// eventDetails decodes an event's details member, as the API marshals it.
func eventDetails(ev executor.Event) historyDetails {
	var d historyDetails
	b, err := json.Marshal(ev)
	if err != nil {
		return d
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil {
		return d
	}
	for k, v := range members {
		if strings.HasSuffix(k, "EventDetails") {
			_ = json.Unmarshal(v, &d) // best effort: a step without its detail
		}
	}
	return d
}

// stepOf is the Step of a row's event, in the state named state.
func stepOf(ev executor.Event, r journeyRow, state string) Step {
	s := Step{At: ev.Timestamp.Sub(Epoch), State: state}
	typ := ev.Type
	switch {
	case typ == "ExecutionStarted":
		s.State, s.Event = "", "execution started"
		return s
	case strings.HasPrefix(typ, "Execution"):
		s.State, s.Event = "", "execution "+eventWords(strings.TrimPrefix(typ, "Execution"))
		if d := eventDetails(ev); d.Error != "" {
			s.Detail = clip(errorWords(d.Error, d.Cause), maxStepDetail)
		}
		return s
	case strings.HasSuffix(typ, "StateEntered"):
		s.Event = "entered"
		return s
	case strings.HasSuffix(typ, "StateExited"):
		s.Event, s.Detail = "left", "after "+shortDuration(r.took)
		return s
	case typ == "TaskScheduled", typ == "LambdaFunctionScheduled":
		s.Event, s.Detail = "task retried", "after "+shortDuration(r.took)
		return s
	default:
		s.Event = "task " + eventWords(strings.TrimPrefix(strings.TrimPrefix(typ, "Task"), "LambdaFunction"))
	}
	d := eventDetails(ev)
	switch {
	case d.Error != "":
		s.Detail = errorWords(d.Error, d.Cause)
	case d.Output != "":
		s.Detail = outputSummary(d.Output)
	}
	s.Detail = clip(s.Detail, maxStepDetail)
	return s
}

// errorWords is an error and its cause, the cause a Lambda function's
// error document ({"errorMessage": ..., "errorType": ...}) reduced to
// its message.
func errorWords(name, cause string) string {
	var lambda struct {
		ErrorMessage string `json:"errorMessage"`
	}
	if json.Unmarshal([]byte(cause), &lambda) == nil && lambda.ErrorMessage != "" {
		cause = lambda.ErrorMessage
	}
	if cause == "" {
		return name
	}
	return name + ": " + cause
}

// eventWords turns the rest of an event type into words: "TimedOut" is
// "timed out".
func eventWords(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte(' ')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stepDoc is what a step shows of a task's output: a redrive document
// (the Attempt task's), a waiting room's release, or the Park task's
// result.
type stepDoc struct {
	Decision     string       `json:"decision"`
	Outcome      string       `json:"outcome"`
	BreakerState string       `json:"breakerState"`
	Next         message.Next `json:"next"`
	WaitSeconds  int          `json:"waitSeconds"`
	Tries        int          `json:"tries"`
	History      []struct {
		Try       int    `json:"try"`
		Outcome   string `json:"outcome"`
		ErrorType string `json:"errorType"`
	} `json:"history"`
	Released bool   `json:"released"`
	Reason   string `json:"reason"`
}

// outputSummary says what a task's output (its Lambda result's Payload,
// or the output itself) tells: the redrive Attempt's decision, the
// delivery's outcome, the breaker's state and where the execution goes
// next; a release from the waiting room; why a message was parked.
func outputSummary(output string) string {
	raw := []byte(output)
	var invoke struct {
		Payload json.RawMessage `json:"Payload"`
	}
	if json.Unmarshal(raw, &invoke) == nil && len(invoke.Payload) > 0 {
		raw = invoke.Payload
	}
	var d stepDoc
	if json.Unmarshal(raw, &d) != nil {
		return ""
	}
	switch {
	case d.Decision != "" || d.Next != "":
		var parts []string
		if d.Decision != "" {
			parts = append(parts, "verdict "+d.Decision)
		}
		switch {
		case d.Outcome == "":
			parts = append(parts, "not delivered")
		case len(d.History) > 0 && d.History[len(d.History)-1].Outcome == d.Outcome && d.History[len(d.History)-1].Try == d.Tries &&
			d.History[len(d.History)-1].ErrorType != "":
			// This try's failure (a throttled try records none).
			parts = append(parts, "delivery "+d.Outcome+" ("+d.History[len(d.History)-1].ErrorType+")")
		default:
			parts = append(parts, "delivery "+d.Outcome)
		}
		if d.BreakerState != "" {
			parts = append(parts, "breaker "+d.BreakerState)
		}
		out := strings.Join(parts, ", ")
		if next := nextWords(d.Next, d.WaitSeconds); next != "" {
			out += " → " + next
		}
		return out
	case d.Released:
		return "released from the waiting room"
	case d.Reason != "":
		return "parked: " + d.Reason
	}
	return ""
}

// nextWords says where a redrive execution goes after its Attempt.
func nextWords(next message.Next, waitSeconds int) string {
	switch next {
	case message.NextDone:
		return "done"
	case message.NextWait:
		return "backoff " + shortDuration(time.Duration(waitSeconds)*time.Second)
	case message.NextRoom:
		return "waiting room"
	case message.NextPark:
		return "park"
	}
	return strings.ToLower(string(next))
}

// shortDuration formats d to a tenth of a second, e.g. "22s", "11m19.6s".
func shortDuration(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }

// stepClock formats an offset as h:mm:ss.s.
func stepClock(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	tenths := int(d / (100 * time.Millisecond) % 10)
	return fmt.Sprintf("%s%d:%02d:%02d.%d", sign, int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60, tenths)
}

// clip cuts s to at most n characters, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// journeyStatus is the outcome of an execution that settled no message
// the usual way: its status in lower case.
func journeyStatus(st executor.Status) string { return strings.ToLower(string(st)) }
