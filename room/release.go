package room

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/redrive/redrive/clock"
)

// StartAPI is the part of the Step Functions client a release calls;
// *sfn.Client satisfies it.
type StartAPI interface {
	StartExecution(ctx context.Context, params *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

// Releaser starts the execution of released entries: the attempt state
// machine (Express), one execution per delivery try.
type Releaser struct {
	// SFN starts executions.
	SFN StartAPI
	// StateMachineARN is the attempt state machine.
	StateMachineARN string
	// Prepare is an entry's execution at now: its name (Express does not
	// deduplicate names: they are for people reading the logs) and its
	// input, the entry's document as the execution is to see it.
	Prepare func(e Entry, now time.Time) (name, input string)
	// Owner names the claims this releaser takes.
	Owner string
	// Lease is how long a claim holds: longer than a release takes, so a
	// releaser that dies mid-release leaves a claim that expires.
	Lease time.Duration
	// Workers is how many releases of one batch run at once (each is three
	// calls: claim, start, delete, so a release rate of thousands a second
	// needs them in parallel); 0 or 1 releases one at a time, in line.
	Workers int
	// Lifted, if set, reports whether the hold rule a FIFO group is held
	// behind (Room.Hold) is lifted, so the group goes on; nil keeps every
	// held group held.
	Lifted func(ctx context.Context, ruleID string) (bool, error)
}

// FIFODepth is how deep a release batch looks into a room of FIFO
// messages for the groups' heads first (or FIFOLookahead times the batch,
// if more): a group's messages are in line behind its head, so one long
// group must not hide the others' heads. Finding too few heads that may
// go, it looks FIFODeepen times deeper, up to FIFOMaxDepth.
const (
	FIFODepth     = 1000
	FIFOLookahead = 8
	FIFODeepen    = 4
	FIFOMaxDepth  = 64_000
)

// Outcome is what releasing one entry did.
type Outcome int

// The outcomes of a release.
const (
	// Released: the entry's execution was started, and the entry taken
	// out of the room.
	Released Outcome = iota + 1
	// Skipped: the entry was gone, replaced, or claimed by another
	// release; nothing was started.
	Skipped
	// Undeleted: the entry's execution was started, but taking the entry
	// out of the room failed (Release returns why); its claim expires and
	// the entry goes again (the delivery ledger makes that second
	// execution harmless).
	Undeleted
)

// Counts adds up what a batch of releases did.
type Counts struct {
	// Listed counts the entries the batch found due that could go; fewer
	// than asked for means the room ran short.
	Listed int
	// Behind counts the FIFO entries listed behind an earlier entry of
	// their group, left in line for their turn.
	Behind int
	// Released counts the executions started (Undeleted ones too),
	// Skipped the entries another release had, Undeleted the released
	// entries left in the room, Failed the releases that failed.
	Released, Skipped, Undeleted, Failed int
	// Err is the first error of the batch.
	Err error
}

// dueInTurn lists up to n of key's entries that may go at now (see
// inTurn), with how many FIFO entries it left behind their groups' heads:
// a FIFO room is listed FIFODepth deep and deeper while it holds fewer
// than n heads that may go (a held group's, one left until HeldRecheck,
// is not one).
func (r *Room) dueInTurn(ctx context.Context, key string, n int, now time.Time) ([]Entry, int, error) {
	listed, err := r.Due(ctx, key, n, now)
	if err != nil || len(listed) < n || !slices.ContainsFunc(listed, func(e Entry) bool { return e.Place != nil }) {
		entries, behind := inTurn(listed, now)
		return entries, behind, err
	}
	for depth := max(n*FIFOLookahead, FIFODepth); ; depth *= FIFODeepen {
		if listed, err = r.Due(ctx, key, depth, now); err != nil {
			return nil, 0, err
		}
		entries, behind := inTurn(listed, now)
		entries = slices.DeleteFunc(entries, func(e Entry) bool { return r.heldAt(e, now) })
		if len(entries) >= n || len(listed) < depth || depth >= FIFOMaxDepth {
			return entries[:min(len(entries), n)], behind, nil
		}
	}
}

// Release claims e, starts its execution with its document, then takes it
// out of the room. Claiming first means two releasers never start one
// entry twice; starting before taking means a releaser that dies between
// the two loses nothing (the claim expires, and the entry goes again). A
// start that fails gives the claim up and returns the error: the entry
// stays in line. A FIFO entry goes only when it has its group's turn
// (line.go), which it takes first; otherwise it is Skipped.
func (r *Room) Release(ctx context.Context, rel Releaser, e Entry, now time.Time, i int) (Outcome, error) {
	if e.Place != nil {
		if mine, err := r.takeTurn(ctx, e, now, rel.Lifted); err != nil || !mine {
			return Skipped, err
		}
	}
	claimed, ok, err := r.Claim(ctx, e, claimName(rel.Owner, now, i), now, rel.Lease)
	if err != nil || !ok {
		return Skipped, err
	}
	name, input := rel.Prepare(claimed, now)
	if _, err := rel.SFN.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(rel.StateMachineARN),
		Name:            aws.String(name),
		Input:           aws.String(input),
	}); err != nil {
		if uerr := r.Unclaim(context.WithoutCancel(ctx), claimed); uerr != nil {
			err = fmt.Errorf("%w (and its claim stays until it expires: %v)", err, uerr)
		}
		return 0, fmt.Errorf("room %q: release %s (left in the room): %w", e.Key, e.MessageID, err)
	}
	if _, err := r.Take(context.WithoutCancel(ctx), claimed); err != nil {
		// Not taken: its claim expires and it goes again. (Not taken
		// because the message entered again since is no failure: it is
		// back in line with a newer document.)
		return Undeleted, err
	}
	return Released, nil
}

// ReleaseDue releases up to n of key's entries that are due at now, the
// i-th of them no sooner than i*step after now on clk (nil: at once).
// The times are kept from now, not from the release before, so the time
// the tick spent before the first release and the releases' own calls
// do not stretch it: n releases take n*step, as the pace meant. At most
// workers go at a time; proceed, when not nil, is
// asked before each release and stops the batch when it says no. A failed
// release is counted and the batch goes on: a few errors slow a release,
// they never stop it. Of a FIFO group's entries only its head, the first
// in its order, is tried, once due; the listing looks FIFODepth entries
// deep (FIFOLookahead times n, if more) to find them.
func (r *Room) ReleaseDue(ctx context.Context, rel Releaser, key string, n int, now time.Time, step time.Duration,
	clk clock.Clock, proceed func(context.Context) bool) Counts {
	var c Counts
	entries, behind, err := r.dueInTurn(ctx, key, n, now)
	if err != nil {
		c.Err = err
		return c
	}
	c.Listed, c.Behind = len(entries), behind
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(rel.Workers, 1))
	release := func(i int, e Entry) {
		o, err := r.Release(ctx, rel, e, now, i)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && c.Err == nil {
			c.Err = err
		}
		switch {
		case o == Undeleted:
			c.Released++
			c.Undeleted++
		case err != nil:
			c.Failed++
		case o == Released:
			c.Released++
		default:
			c.Skipped++
		}
	}
	for i, e := range entries {
		if i > 0 {
			if clk != nil {
				if d := now.Add(time.Duration(i) * step).Sub(clk.Now()); d > 0 {
					clk.Sleep(ctx, d)
				}
			}
			if proceed != nil && !proceed(ctx) {
				break
			}
		}
		if rel.Workers <= 1 {
			release(i, e)
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			release(i, e)
		}()
	}
	wg.Wait()
	return c
}
