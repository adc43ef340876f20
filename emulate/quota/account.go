package quota

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// Errors the throttled calls answer, matching AWS's.
var (
	// ErrThrottled is a call beyond its bucket (ThrottlingException,
	// ProvisionedThroughputExceededException).
	ErrThrottled = errors.New("quota: rate exceeded")
	// ErrLimitExceeded is a call beyond what may be open at once
	// (ExecutionLimitExceeded, TooManyRequestsException).
	ErrLimitExceeded = errors.New("quota: limit exceeded")
)

// Account is one AWS account's quotas. Its buckets fill as time passes:
// each call says when it is made, on the clock of the run. It is safe for
// concurrent use.
type Account struct {
	profile Profile

	mu         sync.Mutex
	buckets    map[Name]*bucket
	partitions map[partition]*bucket
	gauges     map[Name]*gauge
	throttles  map[Name]int64
	// partitionPeak is the peak use of any one partition, by quota.
	partitionPeak map[Name]float64
	// sweepAt is how many partition buckets there may be before the idle
	// ones are dropped (sweepIdle).
	sweepAt int
}

// minSweep is the fewest partition buckets an account keeps before it
// drops the idle ones: a run touches one partition per item (every
// message's room entry and delivery record), which would otherwise each
// keep a bucket to the end of the run.
const minSweep = 4096

// partition is one DynamoDB partition key's reads or writes.
type partition struct {
	quota Name
	key   string
}

// NewAccount returns an account with p's quotas, its buckets full.
func NewAccount(p Profile) *Account {
	a := &Account{profile: p.clone(), buckets: map[Name]*bucket{}, partitions: map[partition]*bucket{},
		gauges: map[Name]*gauge{}, throttles: map[Name]int64{}, partitionPeak: map[Name]float64{}, sweepAt: minSweep}
	for n, r := range a.profile.Rates {
		if n != PartitionRead && n != PartitionWrite {
			a.buckets[n] = newBucket(r)
		}
	}
	for n, l := range a.profile.Limits {
		a.gauges[n] = &gauge{limit: l}
	}
	return a
}

// Has reports whether the account keeps quota n: a bucket or a limit.
func (a *Account) Has(n Name) bool {
	_, rated := a.profile.Rates[n]
	_, limited := a.profile.Limits[n]
	return rated || limited
}

// Take takes the token of one call of quota n made at now: ErrThrottled,
// counted, when the bucket is empty; nil when it is not, or n has no
// bucket.
func (a *Account) Take(n Name, now time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.buckets[n]
	if b == nil || b.take(now, 1) {
		return nil
	}
	a.throttles[n]++
	return fmt.Errorf("%w: %s", ErrThrottled, n)
}

// Wait takes one token of quota n at now even when the bucket is empty,
// and returns how long the caller must wait for it: a state transition beyond
// the bucket is delayed (and counted as throttled), not refused.
func (a *Account) Wait(n Name, now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.buckets[n]
	if b == nil {
		return 0
	}
	d := b.borrow(now)
	if d > 0 {
		a.throttles[n]++
	}
	return d
}

// Enter counts one more of quota n open: ErrLimitExceeded, counted, when
// that would pass its limit; nil when it does not, or n has no limit.
// Each nil answer is matched by one Leave.
func (a *Account) Enter(n Name) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	g := a.gauges[n]
	if g == nil || g.enter() {
		return nil
	}
	a.throttles[n]++
	return fmt.Errorf("%w: %s (%d)", ErrLimitExceeded, n, g.limit)
}

// Leave counts one fewer of quota n open.
func (a *Account) Leave(n Name) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if g := a.gauges[n]; g != nil {
		g.level--
	}
}

// TakePartition takes units of quota n (PartitionRead or PartitionWrite)
// from the partition of key at now: ErrThrottled, counted, beyond it.
func (a *Account) TakePartition(n Name, key string, units float64, now time.Time) error {
	r, ok := a.profile.Rates[n]
	if !ok {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := partition{n, key}
	b := a.partitions[p]
	if b == nil {
		if len(a.partitions) >= a.sweepAt {
			a.sweepIdle(now)
			a.sweepAt = max(2*len(a.partitions), minSweep)
		}
		b = newBucket(r)
		a.partitions[p] = b
	}
	ok = b.take(now, units)
	a.partitionPeak[n] = max(a.partitionPeak[n], b.peak)
	if ok {
		return nil
	}
	a.throttles[n]++
	return fmt.Errorf("%w: %s of %q", ErrThrottled, n, key)
}

// sweepIdle drops the partition buckets that are as a new one would be at
// now: full again, their last second of use over (its peak is in
// partitionPeak already). Call with a.mu held.
func (a *Account) sweepIdle(now time.Time) {
	for p, b := range a.partitions {
		if b.refill(now); b.tokens >= b.rate.Burst && now.Sub(b.window) >= time.Second {
			delete(a.partitions, p)
		}
	}
}

// Report is what an account's use of its quotas came to.
type Report struct {
	// PeakUse is each quota's peak use as a fraction: for a bucket, the
	// most calls in one second over its refill rate (above 1 while its
	// burst lasts); for a limit, the most open at once over the limit;
	// for DynamoDB, the busiest partition's.
	PeakUse map[Name]float64
	// Throttles counts the calls each quota throttled (refused, or for
	// state transitions delayed); quotas that throttled none are absent.
	Throttles map[Name]int64
	// PeakOpenStandard is the most Standard executions open at once.
	PeakOpenStandard int
}

// Report returns the account's use so far.
func (a *Account) Report() Report {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := Report{PeakUse: map[Name]float64{}, Throttles: map[Name]int64{}}
	for _, n := range a.profile.names() {
		switch {
		case a.buckets[n] != nil:
			r.PeakUse[n] = a.buckets[n].peak
		case a.gauges[n] != nil:
			r.PeakUse[n] = float64(a.gauges[n].peak) / float64(max(a.gauges[n].limit, 1))
		default:
			r.PeakUse[n] = a.partitionPeak[n]
		}
	}
	for n, c := range a.throttles {
		r.Throttles[n] = c
	}
	if g := a.gauges[OpenStandard]; g != nil {
		r.PeakOpenStandard = g.peak
	}
	return r
}

// bucket is a token bucket that also keeps its peak use.
type bucket struct {
	rate   Rate
	tokens float64
	at     time.Time // when tokens was last brought up to date
	// window is the one-second window used counts the tokens taken in;
	// peak is the most of any window over the refill rate.
	window time.Time
	used   float64
	peak   float64
}

func newBucket(r Rate) *bucket { return &bucket{rate: r, tokens: r.Burst} }

// refill brings tokens up to now.
func (b *bucket) refill(now time.Time) {
	if now.After(b.at) {
		if !b.at.IsZero() {
			b.tokens = min(b.rate.Burst, b.tokens+now.Sub(b.at).Seconds()*b.rate.PerSecond)
		}
		b.at = now
	}
}

// take takes n tokens at now if the bucket holds them.
func (b *bucket) take(now time.Time, n float64) bool {
	b.refill(now)
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	b.count(now, n)
	return true
}

// borrow takes a token at now, into debt if need be, and returns how long
// until the bucket would have held it; the token counts when it is used.
func (b *bucket) borrow(now time.Time) time.Duration {
	b.refill(now)
	b.tokens--
	if b.tokens >= 0 {
		b.count(now, 1)
		return 0
	}
	d := time.Duration(math.Ceil(-b.tokens / b.rate.PerSecond * float64(time.Second)))
	b.count(now.Add(d), 1)
	return d
}

// count adds n tokens used at t to the window of t; t never goes back
// past the current window (debts are paid in order).
func (b *bucket) count(t time.Time, n float64) {
	if w := t.Truncate(time.Second); w.After(b.window) {
		b.window, b.used = w, 0
	}
	b.used += n
	if b.rate.PerSecond > 0 {
		b.peak = max(b.peak, b.used/b.rate.PerSecond)
	}
}

// gauge counts what is open against a limit.
type gauge struct {
	limit, level, peak int
}

// enter counts one more open unless that passes the limit.
func (g *gauge) enter() bool {
	if g.level >= g.limit {
		return false
	}
	g.level++
	g.peak = max(g.peak, g.level)
	return true
}
