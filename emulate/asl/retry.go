package asl

import (
	"math"
	"time"
)

// retrier is one element of a Task state's Retry.
type retrier struct {
	errorEquals []string
	interval    time.Duration // IntervalSeconds, default 1 s
	maxAttempts int           // default 3; 0 never retries
	backoffRate float64       // default 2.0
	maxDelay    time.Duration // MaxDelaySeconds; 0 means no cap
	fullJitter  bool          // JitterStrategy FULL
}

// compileRetry reads a Task state's Retry.
func (st *State) compileRetry(f *fields) error {
	return eachObject(f, "Retry", "retriers", func(rf *fields, last bool) error {
		if err := rf.allow("ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds", "JitterStrategy", "Comment"); err != nil {
			return err
		}
		r := &retrier{interval: time.Second, maxAttempts: 3, backoffRate: 2}
		var err error
		if r.errorEquals, err = compileErrorEquals(rf, last); err != nil {
			return err
		}
		if n, ok, err := rf.integer("IntervalSeconds", 1, maxTimeoutSeconds); err != nil {
			return err
		} else if ok {
			r.interval = time.Duration(n) * time.Second
		}
		if n, ok, err := rf.integer("MaxAttempts", 0, maxTimeoutSeconds); err != nil {
			return err
		} else if ok {
			r.maxAttempts = int(n)
		}
		if x, ok, err := rf.number("BackoffRate", 1); err != nil {
			return err
		} else if ok {
			r.backoffRate = x
		}
		if n, ok, err := rf.integer("MaxDelaySeconds", 1, maxMaxDelaySeconds); err != nil {
			return err
		} else if ok {
			r.maxDelay = time.Duration(n) * time.Second
		}
		switch js, err := rf.str("JitterStrategy", false); {
		case err != nil:
			return err
		case js == "FULL":
			r.fullJitter = true
		case js != "" && js != "NONE":
			return rf.err("JitterStrategy", "must be \"FULL\" or \"NONE\", got %q", js)
		}
		st.retriers = append(st.retriers, r)
		return nil
	})
}

// delay returns the wait before retry number attempt (0-based) of r:
// IntervalSeconds x BackoffRate^attempt, capped at MaxDelaySeconds, and with
// FULL jitter a uniformly random duration between 0 and that (rnd in [0,1)).
func (r *retrier) delay(attempt int, rnd float64) time.Duration {
	d := float64(r.interval) * math.Pow(r.backoffRate, float64(attempt))
	if limit := float64(maxTimeoutSeconds) * float64(time.Second); d > limit || math.IsInf(d, 0) {
		d = limit
	}
	if r.maxDelay > 0 && d > float64(r.maxDelay) {
		d = float64(r.maxDelay)
	}
	if r.fullJitter {
		d *= rnd
	}
	return time.Duration(d)
}

// NumRetriers is how many retriers the state's Retry has.
func (st *State) NumRetriers() int { return len(st.retriers) }

// Retry applies the state's Retry to an error named name. The first
// retrier whose ErrorEquals matches decides: once its MaxAttempts are used
// up the catchers apply, even if a later retrier would also match (AWS's
// "Complex retry scenarios"). used counts the retries the state entry has
// used per retrier (NumRetriers long); Retry counts the one it grants.
// random, in [0, 1), is called only for a retry, for its jitter. ok is
// false when no retry is granted.
func (st *State) Retry(name string, used []int, random func() float64) (wait time.Duration, ok bool) {
	for i, r := range st.retriers {
		if !matches(r.errorEquals, name) {
			continue
		}
		if used[i] >= r.maxAttempts {
			return 0, false
		}
		wait = r.delay(used[i], random())
		used[i]++
		return wait, true
	}
	return 0, false
}
