package breaker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redrive/redrive/clock"
)

// Breaker is what the Lambda tasks call: each method loads the row, applies
// the pure function, and when the row changed saves it on the condition
// that nobody wrote in between, re-loading and retrying on a conflict.
// Uncontended, a call costs one read and at most one conditional write.
// It is safe for concurrent use.
type Breaker struct {
	store      Store
	policy     Policy
	clock      clock.Clock
	rnd        Random
	maxRetries int
	backoff    time.Duration
	observer   func(Transition)
	maxAge     time.Duration
	// closed holds the last CLOSED or FORCED_CLOSED row read or saved of
	// each key (a cachedRow), when maxAge is set.
	closed sync.Map

	loads, saves, conflicts atomic.Int64
}

// cachedRow is a row and when it was read.
type cachedRow struct {
	row  Row
	read time.Time
}

// Stats counts a Breaker's row I/O since it was made.
type Stats struct {
	// Loads counts reads of a row.
	Loads int64
	// Saves counts successful conditional writes.
	Saves int64
	// Conflicts counts conditional writes lost to another writer.
	Conflicts int64
}

// New returns a Breaker over store with policy p and options o, defaults
// applied to both; it fails when p or o is invalid.
func New(store Store, p Policy, o Options) (*Breaker, error) {
	if store == nil {
		return nil, errors.New("breaker: nil store")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	return &Breaker{store: store, policy: p.WithDefaults(), clock: o.Clock, rnd: o.Random,
		maxRetries: o.MaxConflictRetries, backoff: o.ConflictBackoff, observer: o.Observer, maxAge: o.ClosedRowMaxAge}, nil
}

// Policy returns the policy in use, with defaults applied.
func (b *Breaker) Policy() Policy { return b.policy }

// Stats returns the row I/O counts so far.
func (b *Breaker) Stats() Stats {
	return Stats{Loads: b.loads.Load(), Saves: b.saves.Load(), Conflicts: b.conflicts.Load()}
}

// Admit decides whether one message for key may be delivered now (see
// Decide). A Proceed or Canary carries the ticket to pass to Record; the
// decision's Row is the row to pass with it.
func (b *Breaker) Admit(ctx context.Context, key string) (Decision, error) {
	if d, ok := b.admitCached(key); ok {
		return d, nil
	}
	var d Decision
	_, after, err := b.update(ctx, key, nil, func(r Row, now time.Time) (Row, bool, error) {
		var next Row
		var changed bool
		d, next, changed = Decide(b.policy, r, now, b.rnd)
		return next, changed, nil
	})
	if err != nil {
		return Decision{}, fmt.Errorf("admit: %w", err)
	}
	d.Row = after
	return d, nil
}

// admitCached decides on key's cached CLOSED row when it is younger than
// ClosedRowMaxAge and the decision would not change it; ok is false when
// Admit must read the row.
func (b *Breaker) admitCached(key string) (Decision, bool) {
	if b.maxAge <= 0 {
		return Decision{}, false
	}
	v, ok := b.closed.Load(key)
	if !ok {
		return Decision{}, false
	}
	c, now := v.(cachedRow), b.clock.Now()
	if now.Sub(c.read) >= b.maxAge {
		return Decision{}, false
	}
	d, _, changed := Decide(b.policy, c.row, now, b.rnd)
	if changed {
		return Decision{}, false
	}
	d.Row = c.row
	return d, true
}

// remember caches r as key's row read at now, if it may be decided on
// (CLOSED or FORCED_CLOSED), and forgets key's cached row otherwise.
func (b *Breaker) remember(key string, r Row, now time.Time) {
	if b.maxAge <= 0 {
		return
	}
	if r.State == Closed || r.State == ForcedClosed {
		b.closed.Store(key, cachedRow{row: r, read: now})
		return
	}
	b.closed.Delete(key)
}

// Record reports the outcome of a delivery admitted with ticket t (see
// Observe) and returns the row after it. seen is the row the admission
// left (Decision.Row): Record applies the outcome to it and saves on the
// condition that nobody wrote since, reading the row again only on a
// conflict. A zero seen (Version 0 and no key) makes it read first.
func (b *Breaker) Record(ctx context.Context, key string, seen Row, t Ticket, o Outcome) (Row, error) {
	return b.RecordOnce(ctx, key, seen, t, o, "")
}

// RecordOnce is Record for the delivery named delivery: an outcome that
// changes the row lists delivery in the row's Recorded in the same write,
// and a delivery already listed there is not recorded again, so a retried
// delivery try (its invocation died after recording) counts once. An
// empty delivery is Record.
func (b *Breaker) RecordOnce(ctx context.Context, key string, seen Row, t Ticket, o Outcome, delivery string) (Row, error) {
	if !o.Valid() {
		return Row{}, fmt.Errorf("record breaker %q: %w %s", key, ErrInvalidOutcome, o)
	}
	var first *Row
	if seen.Key == key {
		first = &seen
	}
	_, after, err := b.update(ctx, key, first, func(r Row, now time.Time) (Row, bool, error) {
		if delivery != "" && slices.Contains(r.Recorded, delivery) {
			return r, false, nil
		}
		next, changed := Observe(b.policy, r, t, o, now, b.rnd)
		if changed && delivery != "" {
			next.Recorded = append(slices.Clone(r.Recorded[max(len(r.Recorded)-MaxRecorded+1, 0):]), delivery)
		}
		return next, changed, nil
	})
	if err != nil {
		return Row{}, fmt.Errorf("record %s: %w", o, err)
	}
	return after, nil
}

// Command applies an operator's command (see ApplyCommand) and returns the
// row before and after it.
func (b *Breaker) Command(ctx context.Context, key string, c Command) (before, after Row, err error) {
	before, after, err = b.update(ctx, key, nil, func(r Row, now time.Time) (Row, bool, error) {
		return ApplyCommand(r, c, now)
	})
	if err != nil {
		return Row{}, Row{}, fmt.Errorf("command %s: %w", c.Kind, err)
	}
	return before, after, nil
}

// Status returns the stored row for key, without changing it.
func (b *Breaker) Status(ctx context.Context, key string) (Row, error) {
	if key == "" {
		return Row{}, ErrEmptyKey
	}
	return b.load(ctx, key)
}
