package breaker

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// update is the one read-modify-write loop behind every Breaker method:
// load (or start from first, a row read earlier), apply, and if the row
// changed, save it conditionally on the loaded version; on a conflict,
// pause briefly, re-load and apply again.
func (b *Breaker) update(ctx context.Context, key string, first *Row,
	apply func(Row, time.Time) (Row, bool, error)) (Row, Row, error) {
	if key == "" {
		return Row{}, Row{}, ErrEmptyKey
	}
	for attempt := 1; ; attempt++ {
		var before Row
		var err error
		if first != nil && attempt == 1 {
			before = *first
		} else if before, err = b.load(ctx, key); err != nil {
			return Row{}, Row{}, err
		}
		after, changed, err := apply(before, b.clock.Now())
		if err != nil {
			return Row{}, Row{}, fmt.Errorf("breaker %q: %w", key, err)
		}
		if !changed {
			return before, after, nil
		}
		after.Key = key
		after.Version = before.Version + 1
		err = b.store.Save(ctx, before.Version, after)
		if err == nil {
			b.saves.Add(1)
			b.remember(key, after, b.clock.Now())
			b.report(before, after)
			return before, after, nil
		}
		if !errors.Is(err, ErrConflict) {
			return Row{}, Row{}, fmt.Errorf("save breaker %q version %d: %w", key, after.Version, err)
		}
		b.conflicts.Add(1)
		if attempt > b.maxRetries {
			return Row{}, Row{}, &ConflictError{Key: key, Attempts: attempt}
		}
		if err := b.pause(ctx, attempt); err != nil {
			return Row{}, Row{}, fmt.Errorf("retry breaker %q after conflict: %w", key, err)
		}
	}
}

func (b *Breaker) load(ctx context.Context, key string) (Row, error) {
	r, err := b.store.Load(ctx, key)
	if err != nil {
		return Row{}, fmt.Errorf("load breaker %q: %w", key, err)
	}
	b.loads.Add(1)
	r.Key = key
	b.remember(key, r, b.clock.Now())
	return r, nil
}

// pause waits a random time up to min(backoff, 1ms doubled per attempt),
// so that writers who collided do not collide again in lockstep.
func (b *Breaker) pause(ctx context.Context, attempt int) error {
	ceiling := min(b.backoff, time.Millisecond<<min(attempt-1, 20))
	d := time.Duration(b.rnd.Float64() * float64(ceiling))
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// report tells the observer about the state change a save made, if any.
func (b *Breaker) report(before, after Row) {
	if b.observer == nil {
		return
	}
	if t, ok := transitionOf(before, after); ok {
		b.observer(t)
	}
}
