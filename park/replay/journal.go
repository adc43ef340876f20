package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redrive/redrive/dynamo"
)

// Status is where a replay is.
type Status string

// The statuses a replay's record goes through: running, then done or
// interrupted (its context ended or a call failed; run it again with the
// same id to carry on).
const (
	Running     Status = "running"
	Done        Status = "done"
	Interrupted Status = "interrupted"
)

// Attribute names of a replay's record.
const (
	attrID         = "replay_id"
	attrActor      = "actor"
	attrLastActor  = "last_actor"
	attrFilter     = "filter"
	attrFilterText = "filter_text"
	attrDryRun     = "dry_run"
	attrRate       = "rate"
	attrStatus     = "status"
	attrRuns       = "runs"
	attrStarted    = "started_at"
	attrUpdated    = "updated_at"
	attrFinished   = "finished_at"
	attrLease      = "lease_until"
	attrMoved      = "moved"
	attrMatched    = "matched"
	attrSkipped    = "skipped"
	attrLeft       = "left"
	attrUnreadable = "unreadable"
	attrDuplicates = "duplicates"
	attrReparked   = "reparked"
	attrError      = "error"
)

// ErrExists is Journal.Begin's error for an id that is taken.
var ErrExists = errors.New("replay: a replay with this id exists")

// ErrNotFound is the error for an id without a record.
var ErrNotFound = errors.New("replay: no such replay")

// ErrNotResumable is Journal.Resume's error for a replay that cannot be
// run again: a dry run, or one still running (its lease has not expired).
var ErrNotResumable = errors.New("replay: cannot resume")

// Counts are what one run of a replay found and did.
type Counts struct {
	// Matched counts messages the filter selected, Duplicates those of
	// them that were a second copy of a message (a park retried after its
	// send), deleted unsent, Skipped those this replay had moved already
	// (parked again since), Left those it did not select (and, in a FIFO
	// lot, those behind a message of their group it left: a group never
	// goes back out of its order) and Unreadable those without a park
	// Record. Moved counts messages sent back to the
	// DLQ (all runs, in a record).
	Matched, Duplicates, Skipped, Left, Unreadable, Moved int
	// Reparked counts the messages that came back into the lot while the
	// run went on from the ones it had sent (a rule or a failure parked
	// them again): not part of the lot it scanned, in none of the counts
	// above, and not sent again.
	Reparked int
}

// Scanned is how many messages of the lot the run looked at: every one
// it received but what it had sent back itself (Reparked).
func (c Counts) Scanned() int { return c.Matched + c.Skipped + c.Left + c.Unreadable }

// Entry is a replay's record.
type Entry struct {
	// ID names the replay; it is in the lineage of every message it
	// moves.
	ID string
	// Actor started it; LastActor ran it last (a resume).
	Actor, LastActor string
	// Filter selects what it moves.
	Filter Filter
	// DryRun reports a dry run: nothing moved.
	DryRun bool
	// Rate bounds its sends, in messages per second.
	Rate float64
	// Status is where it is; Error why it was interrupted.
	Status Status
	Error  string
	// Runs counts its runs: 1, plus one per resume.
	Runs int
	// Started is when it first ran, Updated when its record last changed,
	// Finished when its last run ended (zero while running).
	Started, Updated, Finished time.Time
	// LeaseUntil is when a running replay that stopped updating its record
	// may be taken over by a resume.
	LeaseUntil time.Time
	// Counts are the last run's, and Moved the total of all runs.
	Counts Counts
}

// JournalAPI is the DynamoDB calls a Journal makes; *dynamodb.Client
// satisfies it.
type JournalAPI interface {
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

var _ JournalAPI = (*dynamodb.Client)(nil)

// Journal records replays in the breaker table, one item each. It is
// safe for concurrent use.
type Journal struct {
	api   JournalAPI
	table string
}

// NewJournal returns the journal in table through api.
func NewJournal(api JournalAPI, table string) *Journal {
	return &Journal{api: api, table: table}
}

// key is the record's key.
func (j *Journal) key(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(dynamo.ReplayPrefix + id)}
}

// Begin records a new replay, running; an id that is taken is ErrExists.
func (j *Journal) Begin(ctx context.Context, e Entry) error {
	filter, err := json.Marshal(e.Filter)
	if err != nil {
		return fmt.Errorf("replay: record %s: encode the filter: %w", e.ID, err)
	}
	item := map[string]types.AttributeValue{
		dynamo.PKAttr:  dynamo.S(dynamo.ReplayPrefix + e.ID),
		attrID:         dynamo.S(e.ID),
		attrActor:      dynamo.S(e.Actor),
		attrLastActor:  dynamo.S(e.Actor),
		attrFilter:     dynamo.S(string(filter)),
		attrFilterText: dynamo.S(e.Filter.String()),
		attrDryRun:     &types.AttributeValueMemberBOOL{Value: e.DryRun},
		attrRate:       &types.AttributeValueMemberN{Value: strconv.FormatFloat(e.Rate, 'g', -1, 64)},
		attrStatus:     dynamo.S(string(Running)),
		attrRuns:       dynamo.N(1),
		attrStarted:    dynamo.S(e.Started.UTC().Format(time.RFC3339Nano)),
		attrUpdated:    dynamo.S(e.Started.UTC().Format(time.RFC3339Nano)),
		attrLease:      dynamo.N(e.LeaseUntil.UnixMilli()),
		attrMoved:      dynamo.N(0),
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(dynamo.PKAttr))).Build()
	if err != nil {
		return fmt.Errorf("replay: record %s: %w", e.ID, err)
	}
	_, err = j.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(j.table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	})
	if _, exists := errors.AsType[*types.ConditionalCheckFailedException](err); exists {
		return fmt.Errorf("%w: %q in table %s; resume it with its id, or choose another", ErrExists, e.ID, j.table)
	}
	if err != nil {
		return fmt.Errorf("replay: record %s in table %s: %w", e.ID, j.table, err)
	}
	return nil
}

// Resume marks replay id running again, run by actor, and returns its
// record. A replay that does not exist is ErrNotFound; a dry run, or a
// replay running elsewhere whose lease has not expired at now, is
// ErrNotResumable.
func (j *Journal) Resume(ctx context.Context, id, actor string, now, leaseUntil time.Time) (Entry, error) {
	cond := expression.AttributeExists(expression.Name(dynamo.PKAttr)).
		And(expression.Name(attrDryRun).Equal(expression.Value(false))).
		And(expression.Name(attrStatus).NotEqual(expression.Value(string(Running))).
			Or(expression.Name(attrLease).LessThan(expression.Value(now.UnixMilli()))))
	upd := expression.Set(expression.Name(attrStatus), expression.Value(string(Running))).
		Set(expression.Name(attrLastActor), expression.Value(actor)).
		Set(expression.Name(attrUpdated), expression.Value(now.UTC().Format(time.RFC3339Nano))).
		Set(expression.Name(attrLease), expression.Value(leaseUntil.UnixMilli())).
		Add(expression.Name(attrRuns), expression.Value(1)).
		Remove(expression.Name(attrFinished)).
		Remove(expression.Name(attrError))
	expr, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		return Entry{}, fmt.Errorf("replay: resume %s: %w", id, err)
	}
	out, err := j.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(j.table), Key: j.key(id),
		ConditionExpression: expr.Condition(), UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValues: types.ReturnValueAllNew,
	})
	if _, failed := errors.AsType[*types.ConditionalCheckFailedException](err); failed {
		return Entry{}, j.whyNotResumable(ctx, id, now)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("replay: resume %s in table %s: %w", id, j.table, err)
	}
	return decodeEntry(out.Attributes)
}

// whyNotResumable explains a failed Resume condition.
func (j *Journal) whyNotResumable(ctx context.Context, id string, now time.Time) error {
	e, err := j.Get(ctx, id)
	switch {
	case err != nil:
		return err
	case e.DryRun:
		return fmt.Errorf("%w %s: it was a dry run, which moves nothing; start a replay with the same filter (%s)", ErrNotResumable, id, e.Filter)
	case e.Status == Running:
		return fmt.Errorf("%w %s: it is running (run %d by %s, lease until %s, now %s); wait for it, or for its lease to expire",
			ErrNotResumable, id, e.Runs, e.LastActor, e.LeaseUntil.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return fmt.Errorf("%w %s: its record changed meanwhile (%s); try again", ErrNotResumable, id, e.Status)
}

// Progress records the run's counts so far, adds moved to the total, and
// extends the lease to leaseUntil.
func (j *Journal) Progress(ctx context.Context, id string, run Counts, moved int, now, leaseUntil time.Time) error {
	upd := counts(expression.Set(expression.Name(attrLease), expression.Value(leaseUntil.UnixMilli())), run, moved, now)
	return j.update(ctx, id, "progress", upd)
}

// Finish records the end of a run: its counts, moved added to the total,
// the status (Done or Interrupted) and, if interrupted, why.
func (j *Journal) Finish(ctx context.Context, id string, run Counts, moved int, status Status, cause error, now time.Time) error {
	upd := counts(expression.Set(expression.Name(attrStatus), expression.Value(string(status))), run, moved, now).
		Set(expression.Name(attrFinished), expression.Value(now.UTC().Format(time.RFC3339Nano))).
		Set(expression.Name(attrLease), expression.Value(0))
	if cause != nil {
		upd = upd.Set(expression.Name(attrError), expression.Value(cause.Error()))
	}
	return j.update(ctx, id, "finish", upd)
}

// counts adds the run's counts to upd.
func counts(upd expression.UpdateBuilder, run Counts, moved int, now time.Time) expression.UpdateBuilder {
	return upd.Set(expression.Name(attrMatched), expression.Value(run.Matched)).
		Set(expression.Name(attrSkipped), expression.Value(run.Skipped)).
		Set(expression.Name(attrLeft), expression.Value(run.Left)).
		Set(expression.Name(attrUnreadable), expression.Value(run.Unreadable)).
		Set(expression.Name(attrDuplicates), expression.Value(run.Duplicates)).
		Set(expression.Name(attrReparked), expression.Value(run.Reparked)).
		Set(expression.Name(attrUpdated), expression.Value(now.UTC().Format(time.RFC3339Nano))).
		Add(expression.Name(attrMoved), expression.Value(moved))
}

// update applies upd to replay id's record, which must exist.
func (j *Journal) update(ctx context.Context, id, what string, upd expression.UpdateBuilder) error {
	expr, err := expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name(dynamo.PKAttr))).WithUpdate(upd).Build()
	if err != nil {
		return fmt.Errorf("replay: record %s of %s: %w", what, id, err)
	}
	_, err = j.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(j.table), Key: j.key(id),
		ConditionExpression: expr.Condition(), UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if _, missing := errors.AsType[*types.ConditionalCheckFailedException](err); missing {
		return fmt.Errorf("%w: record %s of %q: the record is gone from table %s", ErrNotFound, what, id, j.table)
	}
	if err != nil {
		return fmt.Errorf("replay: record %s of %s in table %s: %w", what, id, j.table, err)
	}
	return nil
}

// Get reads replay id's record; ErrNotFound if there is none.
func (j *Journal) Get(ctx context.Context, id string) (Entry, error) {
	out, err := j.api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(j.table), Key: j.key(id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return Entry{}, fmt.Errorf("replay: read %s from table %s: %w", id, j.table, err)
	}
	if len(out.Item) == 0 {
		return Entry{}, fmt.Errorf("%w: %q in table %s", ErrNotFound, id, j.table)
	}
	return decodeEntry(out.Item)
}

// decodeEntry reads a replay's record.
func decodeEntry(m map[string]types.AttributeValue) (Entry, error) {
	f := dynamo.Read(m)
	e := Entry{
		ID: f.Str(attrID, false), Actor: f.Str(attrActor, false), LastActor: f.Str(attrLastActor, false),
		Rate: f.Float64(attrRate, false), Status: Status(f.Str(attrStatus, false)), Error: f.Str(attrError, false),
		Runs:    int(f.Int64(attrRuns, false)),
		Started: f.Time(attrStarted, false), Updated: f.Time(attrUpdated, false), Finished: f.Time(attrFinished, false),
		Counts: Counts{
			Matched: int(f.Int64(attrMatched, false)), Skipped: int(f.Int64(attrSkipped, false)), Left: int(f.Int64(attrLeft, false)),
			Unreadable: int(f.Int64(attrUnreadable, false)), Moved: int(f.Int64(attrMoved, false)),
			Duplicates: int(f.Int64(attrDuplicates, false)), Reparked: int(f.Int64(attrReparked, false)),
		},
		DryRun: f.Bool(attrDryRun, true),
	}
	if ms := f.Int64(attrLease, false); ms > 0 {
		e.LeaseUntil = time.UnixMilli(ms).UTC()
	}
	f.JSON(attrFilter, true, &e.Filter)
	if err := f.Err(); err != nil {
		return Entry{}, fmt.Errorf("replay: malformed record %q: %w", dynamo.Read(m).Str(dynamo.PKAttr, false), err)
	}
	return e, nil
}
