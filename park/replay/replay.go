package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park/lotindex"
)

// Defaults of a Replayer's Config.
const (
	// DefaultRate is how many messages per second a replay sends back
	// unless told otherwise: slow enough for a target to take, and the
	// starter's pacing and the breaker guard it anyway.
	DefaultRate = 10
	// DefaultVisibilityTimeout hides a message the scan has seen; it is
	// extended while the scan runs, so it bounds how long a message stays
	// hidden after a replay dies.
	DefaultVisibilityTimeout = 5 * time.Minute
	// DefaultWaitTime is the receive's long poll: an empty answer then
	// means the queue has no visible message left.
	DefaultWaitTime = 2 * time.Second
	// MaxRate bounds Rate: SQS's own limits are far above, but a replay
	// faster than this is a bulk move, which the DLQ's starter would meet
	// as one.
	MaxRate = 1000
	// MinRate bounds Rate from below: one message every 100 seconds is
	// slower than any replay needs, and keeps every pause (1/Rate) and
	// every estimate of a lot's sending time far inside a time.Duration.
	MinRate = 0.01
)

// CheckRate reports a replay rate, in messages per second, that is not
// from MinRate to MaxRate.
func CheckRate(rate float64) error {
	if math.IsNaN(rate) || rate < MinRate || rate > MaxRate {
		return fmt.Errorf("replay: rate %v: want from %g to %d messages per second", rate, MinRate, MaxRate)
	}
	return nil
}

// ErrInFlightQuota says a scan stopped at SQS's quota of messages in
// flight (about 120,000 per standard queue): it could hide no more. A run
// again with the same id scans again from the start and moves the matches
// it reaches; as SQS hands messages out in no fixed order, it may reach
// ones this run did not, with no promise that it does.
var ErrInFlightQuota = errors.New("SQS's quota of messages in flight is reached")

// receiveBatch is how many messages one ReceiveMessage asks for, SQS's
// most; releaseBatch how many one ChangeMessageVisibilityBatch carries.
const (
	receiveBatch = 10
	releaseBatch = 10
)

// finishTimeout bounds, in wall time, what a replay does after its
// context ended: deleting a message it sent, making the held messages
// visible again, recording how it ended.
const finishTimeout = 30 * time.Second

// progressEvery is how many moves pass between records of progress.
const progressEvery = 50

// SQSAPI is the SQS calls a replay makes; *sqs.Client satisfies it.
type SQSAPI interface {
	ReceiveMessage(ctx context.Context, params *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	SendMessage(ctx context.Context, params *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	DeleteMessage(ctx context.Context, params *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, params *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
}

var _ SQSAPI = (*sqs.Client)(nil)

// IndexAPI is the DynamoDB calls of the parking lot's index, where a
// replay takes each message it moves (lotindex.Index.Take, a PutItem) and
// deletes its entry once moved (DeleteItem); *dynamodb.Client satisfies
// it.
type IndexAPI interface {
	lotindex.API
}

var _ IndexAPI = (*dynamodb.Client)(nil)

// Config says where a Replayer works and how fast.
type Config struct {
	// ParkingLotURL is the queue parked messages are read from; DLQURL
	// the dead-letter queue they are sent back to. Required.
	ParkingLotURL, DLQURL string
	// Table is the breaker table: the journal and the lot's index.
	// Required.
	Table string
	// VisibilityTimeout hides each message the scan has seen; default
	// DefaultVisibilityTimeout, at least 30 seconds.
	VisibilityTimeout time.Duration
	// WaitTime is each receive's long poll, up to 20 seconds; default
	// DefaultWaitTime. ShortPoll receives without one: only for an
	// emulator on a virtual clock, where a long poll would wait for time
	// that passes only when the caller lets it (SQS's short poll samples
	// a few servers and may come back empty while messages remain).
	WaitTime  time.Duration
	ShortPoll bool
}

// withDefaults fills the zero fields and checks them.
func (c Config) withDefaults() (Config, error) {
	if c.VisibilityTimeout == 0 {
		c.VisibilityTimeout = DefaultVisibilityTimeout
	}
	if c.WaitTime == 0 {
		c.WaitTime = DefaultWaitTime
	}
	switch {
	case c.ParkingLotURL == "":
		return c, errors.New("replay: no parking-lot queue URL")
	case c.DLQURL == "":
		return c, errors.New("replay: no DLQ URL")
	case c.ParkingLotURL == c.DLQURL:
		return c, fmt.Errorf("replay: the parking lot and the DLQ are the same queue, %s", c.DLQURL)
	case c.Table == "":
		return c, errors.New("replay: no table")
	case c.VisibilityTimeout < 30*time.Second || c.VisibilityTimeout > 12*time.Hour:
		return c, fmt.Errorf("replay: visibility timeout %s: want 30s to 12h", c.VisibilityTimeout)
	case c.WaitTime < 0 || c.WaitTime > 20*time.Second:
		return c, fmt.Errorf("replay: wait time %s: want up to 20s, SQS's longest poll", c.WaitTime)
	}
	return c, nil
}

// Replayer runs replays. Make one with New.
type Replayer struct {
	sqs     SQSAPI
	index   *lotindex.Index
	journal *Journal
	clock   clock.Clock
	config  Config
	logger  *slog.Logger
}

// New returns a Replayer on the queues and table of cfg. clk paces the
// sends and dates the records (nil: the wall clock); logger reports what
// does not stop a replay (nil: discarded).
func New(sqsAPI SQSAPI, table interface {
	JournalAPI
	IndexAPI
}, clk clock.Clock, logger *slog.Logger, cfg Config) (*Replayer, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if clk == nil {
		clk = clock.Wall
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Replayer{sqs: sqsAPI, index: lotindex.New(table, cfg.Table), journal: NewJournal(table, cfg.Table), clock: clk, config: cfg, logger: logger}, nil
}

// Journal is the journal the Replayer records its replays in.
func (r *Replayer) Journal() *Journal { return r.journal }

// Plan is one replay to run.
type Plan struct {
	// ID names the replay. Required.
	ID string
	// Actor is who runs it. Required.
	Actor string
	// Resume runs replay ID again, with the filter and rate of its
	// record (Filter and Rate must be zero): it carries on where an
	// interrupted run stopped.
	Resume bool
	// Filter selects the messages to move.
	Filter Filter
	// DryRun scans and counts without moving anything.
	DryRun bool
	// Rate bounds the sends, in messages per second; 0 is DefaultRate.
	Rate float64
}

// Check reports what is wrong with p, before anything is recorded.
func (p Plan) Check() error {
	switch {
	case p.ID == "":
		return errors.New("replay: no replay id")
	case len(p.ID) > message.MaxReplayID:
		return fmt.Errorf("replay: id of %d bytes, want at most %d", len(p.ID), message.MaxReplayID)
	case p.Actor == "":
		return errors.New("replay: no actor: say who runs the replay")
	case p.Resume && p.DryRun:
		return errors.New("replay: a dry run cannot resume a replay")
	case p.Resume && (p.Rate != 0 || !isZero(p.Filter)):
		return errors.New("replay: a resume takes its filter and rate from the replay's record")
	case p.Rate != 0: // 0 is DefaultRate
		if err := CheckRate(p.Rate); err != nil {
			return err
		}
	}
	return p.Filter.Validate()
}

// isZero reports whether f selects everything.
func isZero(f Filter) bool {
	return f.Breaker == "" && f.Reason == "" && f.ErrorType == "" && f.Since.IsZero() && f.Until.IsZero() && len(f.Body) == 0
}

// Group counts the messages of one breaker key, reason class and error
// type a replay moved, or a dry run would move.
type Group struct {
	Breaker, Reason, ErrorType string
	// N counts the messages, Bytes their bodies.
	N, Bytes int
	// Oldest is the earliest parked time.
	Oldest time.Time
}

// Result is what a run of a replay did.
type Result struct {
	// Entry is the replay's record as the run left it.
	Entry Entry
	// Counts are this run's.
	Counts Counts
	// Groups are the messages moved (a dry run: that would move), by
	// breaker key, then reason class, then error type.
	Groups []Group
}

// Moving reports how many messages the run moved, or a dry run would.
func (r Result) Moving() int {
	n := 0
	for _, g := range r.Groups {
		n += g.N
	}
	return n
}

// Run runs plan: it records the replay (or resumes its record), scans the
// parking lot, moves the matches at the plan's rate (a dry run moves
// nothing), makes the messages it did not move visible again, and records
// how it ended. An error that interrupts the scan (ctx ending, a call
// failing) is returned with the Result so far, the record marked
// interrupted: run the plan again with Resume to carry on.
func (r *Replayer) Run(ctx context.Context, plan Plan) (Result, error) {
	if err := plan.Check(); err != nil {
		return Result{}, err
	}
	now := r.clock.Now()
	lease := now.Add(r.lease())
	var entry Entry
	if plan.Resume {
		var err error
		if entry, err = r.journal.Resume(ctx, plan.ID, plan.Actor, now, lease); err != nil {
			return Result{}, err
		}
		if err := CheckRate(entry.Rate); err != nil {
			return Result{}, fmt.Errorf("replay %s: its record's %w", plan.ID, err)
		}
	} else {
		entry = Entry{ID: plan.ID, Actor: plan.Actor, LastActor: plan.Actor, Filter: plan.Filter, DryRun: plan.DryRun,
			Rate: cmp.Or(plan.Rate, DefaultRate), Status: Running, Runs: 1, Started: now, Updated: now, LeaseUntil: lease}
		if err := r.journal.Begin(ctx, entry); err != nil {
			return Result{}, err
		}
	}
	s := &scan{r: r, entry: entry, seen: map[string]bool{}, sent: map[string]bool{}, copies: map[lotindex.Key]bool{}, held: map[string]*held{}, behind: map[string]bool{}, groups: map[groupKey]*Group{}, recorded: now, extended: now,
		pace: pacer{clock: r.clock, interval: time.Duration(float64(time.Second) / entry.Rate)}}
	runErr := s.run(ctx)

	// Whatever happened, show what was not moved and record the end, even
	// with ctx ended: a call for every ten held messages, then the record.
	releasing, cancelRelease := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout*time.Duration(1+len(s.held)/1000))
	if err := s.release(releasing); err != nil {
		runErr = errors.Join(runErr, err)
	}
	cancelRelease()
	after, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	status := Done
	if runErr != nil {
		status = Interrupted
	}
	end := r.clock.Now()
	if err := r.journal.Finish(after, entry.ID, s.counts, s.unrecorded, status, runErr, end); err != nil {
		runErr = errors.Join(runErr, err)
	} else {
		s.unrecorded = 0
	}
	res := Result{Counts: s.counts, Groups: s.sortedGroups()}
	res.Entry, _ = r.journal.Get(after, entry.ID)
	if res.Entry.ID == "" { // the table failed: what this process knows
		res.Entry = entry
		res.Entry.Status, res.Entry.Finished, res.Entry.Counts = status, end, s.counts
	}
	if runErr != nil {
		return res, fmt.Errorf("replay %s interrupted after moving %d (run it again with the same id to carry on): %w", entry.ID, s.counts.Moved, runErr)
	}
	return res, nil
}

// lease is how long a running replay's record holds off a resume after
// its last update: a few visibility timeouts.
func (r *Replayer) lease() time.Duration { return 2 * r.config.VisibilityTimeout }

// groupKey names a Group.
type groupKey struct{ breaker, reason, errorType string }

// held is a message the scan keeps hidden until it ends.
type held struct {
	receipt string
	until   time.Time // when its visibility timeout runs out
}

// scan is one run of a replay over the parking lot.
type scan struct {
	r     *Replayer
	entry Entry
	pace  pacer
	seen  map[string]bool // parking-lot ids received so far
	// sent holds the parking-lot ids of the messages this run sent back,
	// to know them when they come back into the lot (ReplayOf).
	sent map[string]bool
	// copies holds the Keys of the messages a dry run counted.
	copies map[lotindex.Key]bool
	held   map[string]*held
	// behind holds, in a FIFO lot, the groups of the messages the scan
	// left: their later messages are left too, so no group goes back out
	// of its order.
	behind map[string]bool
	groups map[groupKey]*Group
	counts Counts
	// unrecorded counts moves not yet added to the record's total;
	// recorded is when the record was last updated.
	unrecorded int
	recorded   time.Time
	// extended is when extend last looked at the held messages.
	extended time.Time
}

// run receives until the lot has no visible message left.
func (s *scan) run(ctx context.Context) error {
	cfg := s.r.config
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.extend(ctx); err != nil {
			return err
		}
		in := &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(cfg.ParkingLotURL),
			MaxNumberOfMessages:         receiveBatch,
			VisibilityTimeout:           int32(cfg.VisibilityTimeout / time.Second),
			MessageAttributeNames:       []string{"All"},
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		}
		if !cfg.ShortPoll {
			in.WaitTimeSeconds = int32(cfg.WaitTime / time.Second)
		}
		received := s.r.clock.Now()
		out, err := s.r.sqs.ReceiveMessage(ctx, in)
		if _, full := errors.AsType[*sqstypes.OverLimit](err); full {
			return fmt.Errorf("receive from the parking lot %s: %w: the scan holds hidden the %d messages it saw and did not move, until it ends; "+
				"the ones it did not reach were not looked at: %w", cfg.ParkingLotURL, ErrInFlightQuota, len(s.held), err)
		}
		if err != nil {
			return fmt.Errorf("receive from the parking lot %s: %w", cfg.ParkingLotURL, err)
		}
		if len(out.Messages) == 0 {
			return nil
		}
		// Hold every message received before taking any, so that an error
		// part-way leaves none of them hidden for the whole timeout.
		for _, m := range out.Messages {
			s.held[aws.ToString(m.MessageId)] = &held{receipt: aws.ToString(m.ReceiptHandle), until: received.Add(cfg.VisibilityTimeout)}
		}
		for _, m := range out.Messages {
			if err := s.take(ctx, m); err != nil {
				return err
			}
			if err := s.checkpoint(ctx); err != nil {
				return err
			}
		}
	}
}

// take handles one received message, held: it counts it, and moves it if
// it matches (it is no longer held then), or deletes it if it is a
// duplicate; the others stay hidden. In a FIFO lot a message it leaves
// holds its group's later messages back in the lot with it.
func (s *scan) take(ctx context.Context, m sqstypes.Message) error {
	id := aws.ToString(m.MessageId)
	if s.seen[id] { // its visibility ran out mid-scan: counted already
		return nil
	}
	s.seen[id] = true
	group, fifo := m.Attributes[string(sqstypes.MessageSystemAttributeNameMessageGroupId)], message.IsFIFOQueue(s.r.config.ParkingLotURL)
	if fifo && s.behind[group] {
		s.counts.Left++
		return nil
	}
	left, err := s.handle(ctx, m, id)
	if left && fifo {
		s.behind[group] = true
	}
	return err
}

// handle is take on a message not seen before; it reports whether the
// message stays in the lot.
func (s *scan) handle(ctx context.Context, m sqstypes.Message, id string) (left bool, err error) {
	p, err := Decode(m)
	switch {
	case err != nil:
		s.counts.Unreadable++
		s.r.logger.WarnContext(ctx, "replay: parked message without a park record is left", slog.String("replay", s.entry.ID),
			slog.String("parkedMessageId", id), slog.Any("error", err))
		return true, nil
	case p.Record.Replay == s.entry.ID && s.sent[p.Record.ReplayOf]:
		s.counts.Reparked++ // sent back by this run and parked again since: not the lot it scans
		return true, nil
	case !s.entry.Filter.Match(p):
		s.counts.Left++
		return true, nil
	case p.Record.Replay == s.entry.ID:
		s.counts.Skipped++ // moved by this replay before, parked again since
		return true, nil
	}
	s.counts.Matched++
	first, err := s.first(ctx, p)
	if err != nil {
		return true, err // in the lot still (held): shown again at the end
	}
	switch {
	case !first:
		s.counts.Duplicates++
		if s.entry.DryRun {
			return false, nil
		}
		return false, s.drop(ctx, p, aws.ToString(m.ReceiptHandle))
	case s.entry.DryRun:
		s.group(p)
		return false, nil
	}
	if err := s.move(ctx, p, aws.ToString(m.ReceiptHandle)); err != nil {
		return true, err // in the lot still (held): shown again at the end
	}
	delete(s.held, id)
	return false, nil
}

// first reports whether p is the copy of its message that goes back: the
// copy the replay takes in the lot's index (lotindex.Index.Take); false
// for a duplicate, another copy of a message a replay took. A dry run
// takes nothing: the first copy it sees of a message is the one.
func (s *scan) first(ctx context.Context, p Parked) (bool, error) {
	k := p.Record.Key()
	if s.entry.DryRun {
		_, seen := s.copies[k]
		s.copies[k] = true
		return !seen, nil
	}
	taken, err := s.r.index.Take(ctx, k, p.ID, s.entry.ID, s.r.clock.Now())
	if err != nil {
		return false, fmt.Errorf("take parked message %s (origin %q) in the parking lot's index; it stays in the parking lot: %w", p.ID, p.Record.OriginID, err)
	}
	return taken, nil
}

// drop deletes p, a duplicate, from the lot without sending it, and its
// message's entry from the lot's index.
func (s *scan) drop(ctx context.Context, p Parked, receipt string) error {
	cfg := s.r.config
	if _, err := s.r.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(cfg.ParkingLotURL), ReceiptHandle: aws.String(receipt)}); err != nil {
		return fmt.Errorf("delete parked message %s (origin %q, a duplicate of one a replay took) from the parking lot %s: %w",
			p.ID, p.Record.OriginID, cfg.ParkingLotURL, err)
	}
	delete(s.held, p.ID)
	s.r.logger.InfoContext(ctx, "replay: duplicate of a parked message deleted unsent (a park was retried after its send)",
		slog.String("replay", s.entry.ID), slog.String("parkedMessageId", p.ID), slog.String("originId", p.Record.OriginID),
		slog.Int("attempt", p.Record.Attempt))
	s.unlist(ctx, p)
	return nil
}

// unlist deletes p's message's entry from the lot's index; a failure is
// logged only.
func (s *scan) unlist(ctx context.Context, p Parked) {
	if err := s.r.index.Unlist(ctx, p.Record.Key()); err != nil {
		s.r.logger.WarnContext(ctx, "replay: message left in the parking lot's index; `redrive parked` lists it until it expires",
			slog.String("replay", s.entry.ID), slog.String("parkedMessageId", p.ID), slog.Any("error", err))
	}
}

// group counts p in its group.
func (s *scan) group(p Parked) {
	rec := p.Record
	k := groupKey{rec.BreakerKey, lotindex.ReasonClass(rec.Reason), rec.ErrorType()}
	g := s.groups[k]
	if g == nil {
		g = &Group{Breaker: k.breaker, Reason: k.reason, ErrorType: k.errorType}
		s.groups[k] = g
	}
	if g.N == 0 || rec.ParkedAt.Before(g.Oldest) {
		g.Oldest = rec.ParkedAt
	}
	g.N++
	g.Bytes += len(p.Message.Body)
}

// sortedGroups is the groups by breaker key, reason class, error type.
func (s *scan) sortedGroups() []Group {
	out := make([]Group, 0, len(s.groups))
	for _, g := range s.groups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b Group) int {
		return cmp.Or(cmp.Compare(a.Breaker, b.Breaker), cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.ErrorType, b.ErrorType))
	})
	return out
}

// move sends p back to the DLQ at the replay's rate, then deletes it from
// the lot and its message's entry from the lot's index. Once sent it counts as
// moved, whatever the delete does: a parked message left in the lot after
// its copy was sent is sent again by a later run (the replay took this
// copy), as a duplicate of the same execution.
func (s *scan) move(ctx context.Context, p Parked, receipt string) error {
	cfg := s.r.config
	out, err := p.Replayed(s.entry.ID)
	if err != nil {
		return err
	}
	if err := s.pace.wait(ctx); err != nil {
		return err
	}
	in := &sqs.SendMessageInput{
		QueueUrl:          aws.String(cfg.DLQURL),
		MessageBody:       aws.String(out.Body),
		MessageAttributes: out.SQSAttributes(),
	}
	if message.IsFIFOQueue(cfg.DLQURL) {
		// Back in its group, once per replay: a send this run retries is
		// not a second message.
		rec := p.Record
		in.MessageGroupId = aws.String(cmp.Or(rec.MessageGroupID, rec.BreakerKey))
		in.MessageDeduplicationId = aws.String(message.DeduplicationID(s.entry.ID, rec.OriginID, strconv.Itoa(rec.Attempt), rec.MessageTag))
	}
	if _, err := s.r.sqs.SendMessage(ctx, in); err != nil {
		return fmt.Errorf("send parked message %s (origin %q) to the DLQ %s; it stays in the parking lot: %w", p.ID, p.Record.OriginID, cfg.DLQURL, err)
	}
	s.sent[p.ID] = true
	s.counts.Moved++
	s.unrecorded++
	s.group(p)
	// Once sent, delete even if ctx ends now (an operator's Ctrl-C), so
	// that the message is not left in both queues.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	if _, err := s.r.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(cfg.ParkingLotURL), ReceiptHandle: aws.String(receipt)}); err != nil {
		return fmt.Errorf("delete parked message %s (origin %q) from the parking lot %s after sending it to the DLQ; it is in both "+
			"(running the replay again sends a duplicate the starter drops): %w", p.ID, p.Record.OriginID, cfg.ParkingLotURL, err)
	}
	s.unlist(ctx, p)
	return nil
}

// checkpoint records the run's progress and extends its lease, after
// progressEvery moves or half a visibility timeout.
func (s *scan) checkpoint(ctx context.Context) error {
	now := s.r.clock.Now()
	if s.unrecorded < progressEvery && now.Sub(s.recorded) < s.r.config.VisibilityTimeout/2 {
		return nil
	}
	if err := s.r.journal.Progress(ctx, s.entry.ID, s.counts, s.unrecorded, now, now.Add(s.r.lease())); err != nil {
		return err
	}
	s.unrecorded, s.recorded = 0, now
	return nil
}

// extend keeps the held messages hidden while the scan runs: those whose
// visibility timeout has less than half left get a full one again. It
// looks every quarter timeout, so none runs out between two looks.
func (s *scan) extend(ctx context.Context) error {
	now := s.r.clock.Now()
	timeout := s.r.config.VisibilityTimeout
	if now.Sub(s.extended) < timeout/4 {
		return nil
	}
	s.extended = now
	var due []string
	for id, h := range s.held {
		if h.until.Sub(now) < timeout/2 {
			due = append(due, id)
		}
	}
	if len(due) == 0 {
		return nil
	}
	slices.Sort(due)
	return s.changeVisibility(ctx, due, int32(timeout/time.Second), func(id string) { s.held[id].until = now.Add(timeout) })
}

// release makes every held message visible again.
func (s *scan) release(ctx context.Context) error {
	ids := make([]string, 0, len(s.held))
	for id := range s.held {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	err := s.changeVisibility(ctx, ids, 0, func(id string) { delete(s.held, id) })
	if err != nil {
		return fmt.Errorf("make %d parked messages visible again (they reappear within %s anyway): %w", len(s.held), s.r.config.VisibilityTimeout, err)
	}
	return nil
}

// changeVisibility sets the visibility timeout of the held messages ids,
// ten at a time, calling done for each one changed. A message SQS refuses
// (its receipt handle gone stale) is logged: it reappears on its own.
func (s *scan) changeVisibility(ctx context.Context, ids []string, seconds int32, done func(id string)) error {
	for batch := range slices.Chunk(ids, releaseBatch) {
		entries := make([]sqstypes.ChangeMessageVisibilityBatchRequestEntry, len(batch))
		for i, id := range batch {
			entries[i] = sqstypes.ChangeMessageVisibilityBatchRequestEntry{
				Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(s.held[id].receipt), VisibilityTimeout: seconds,
			}
		}
		out, err := s.r.sqs.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{
			QueueUrl: aws.String(s.r.config.ParkingLotURL), Entries: entries,
		})
		if err != nil {
			return err
		}
		failed := map[string]bool{}
		for _, f := range out.Failed {
			failed[aws.ToString(f.Id)] = true
			i, _ := strconv.Atoi(aws.ToString(f.Id))
			s.r.logger.WarnContext(ctx, "replay: could not change a parked message's visibility", slog.String("replay", s.entry.ID),
				slog.String("parkedMessageId", batch[i]), slog.String("code", aws.ToString(f.Code)), slog.String("error", aws.ToString(f.Message)))
		}
		for i, id := range batch {
			if !failed[strconv.Itoa(i)] {
				done(id)
			}
		}
	}
	return nil
}

// pacer spaces sends at least interval apart on its clock.
type pacer struct {
	clock    clock.Clock
	interval time.Duration
	next     time.Time // the earliest time of the next send; zero: now
}

// wait returns when the next send may go, or with ctx's error.
func (p *pacer) wait(ctx context.Context) error {
	now := p.clock.Now()
	if !p.next.IsZero() && now.Before(p.next) {
		p.clock.Sleep(ctx, p.next.Sub(now))
		if err := ctx.Err(); err != nil {
			return err
		}
		now = p.clock.Now()
	}
	// A clock that did not advance while sleeping (the local executor's,
	// outside a handler) still spaces the sends: the next is an interval
	// after the planned time at the latest.
	p.next = later(now, p.next).Add(p.interval)
	return nil
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
