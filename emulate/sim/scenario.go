package sim

import (
	"time"

	"github.com/redrive/redrive/breaker"
)

// Scenario is one simulated outage, as read from a YAML or JSON file. A
// field left out of a file keeps its value from Default, so a file states
// only what differs from the default story. Durations are Go durations
// ("90s", "1h30m"); times are offsets from the start of the simulation.
type Scenario struct {
	// Name labels the run in the table and the report.
	Name string `yaml:"name"`
	// Description says what the scenario shows.
	Description string `yaml:"description"`
	// Seed seeds every source of randomness (jitter, poison choice, the
	// consumer's degraded failures, ids), so a scenario replays.
	Seed int64 `yaml:"seed"`
	// Horizon is the longest simulated time a strategy runs; whatever is
	// not settled then is reported as pending.
	Horizon time.Duration `yaml:"horizon"`
	// Messages is what lands in the DLQ, and when.
	Messages Messages `yaml:"messages"`
	// Target is the consumer the messages are redriven to.
	Target Target `yaml:"target"`
	// Breaker is Redrive's breaker policy; a zero field means the
	// breaker's documented default.
	Breaker Breaker `yaml:"breaker"`
	// Retry is the per-message retry shared by Redrive and the naive
	// baseline.
	Retry Retry `yaml:"retry"`
	// Bulk configures the fixed-rate bulk move baseline.
	Bulk Bulk `yaml:"bulk"`
	// Quotas are the AWS account quotas every strategy runs under (each
	// in an account of its own; package quota): "standard" (most
	// Regions, the default), "large" (the largest) or "none".
	Quotas string `yaml:"quotas"`
	// OpenExecutionsLimit lowers the account's quota of open Standard
	// executions (1,000,000) to show what happens when it fills; 0 keeps
	// the quota.
	OpenExecutionsLimit int `yaml:"open_executions_limit"`
	// AttemptType is how Redrive's attempt state machine is deployed:
	// "express" (the default: one Express execution per delivery try) or
	// "standard" (each try's history in the console, billed per state
	// transition), as the stack's attemptStateMachineType setting.
	AttemptType string `yaml:"attempt_type"`
	// DuplicateStarts, when above zero, has every DuplicateStarts-th
	// execution of Redrive's attempt state machine start twice, as AWS
	// may run an asynchronous Express execution twice (a fault: nothing
	// may be delivered twice for it); 0 starts each once.
	DuplicateStarts int `yaml:"duplicate_starts"`
	// FIFOOnPark is Redrive's FIFO_ON_PARK in a FIFO scenario: "continue"
	// (the default: a parked message's group goes on) or "hold" (it waits
	// behind a hold rule on the group).
	FIFOOnPark string `yaml:"fifo_on_park"`
	// LiftHoldsAt, with FIFOOnPark "hold", is when an operator starts to
	// remove the hold rules, every one there and, looking once a minute,
	// each one made after, letting the held groups go on; 0: never.
	LiftHoldsAt time.Duration `yaml:"lift_holds_at"`
}

// Messages describes the dead-lettered messages and their arrival in the
// DLQ.
type Messages struct {
	// Count is how many messages arrive.
	Count int `yaml:"count"`
	// Start is when the first one arrives.
	Start time.Duration `yaml:"start"`
	// Rate is how many arrive per second from Start on; 0 means all at
	// Start (a burst).
	Rate float64 `yaml:"rate"`
	// Poison is the share of messages the consumer can never process, in
	// [0, 1).
	Poison float64 `yaml:"poison"`
	// Tenants spreads the messages round-robin over this many tenants
	// ("tenant-01", ...); with more than one, Redrive keeps one breaker per
	// tenant (key from the "tenant" message attribute).
	Tenants int `yaml:"tenants"`
	// Groups, when above zero, makes the DLQ a FIFO queue and spreads the
	// messages round-robin over this many message groups ("group-001",
	// ...), each group's messages of one tenant: the consumer checks that
	// each group is delivered in its order (deliveredOutOfOrder). Zero: a
	// standard queue.
	Groups int `yaml:"groups"`
	// BodyBytes, when Max is set, sizes each body between Min and Max
	// bytes (spread evenly by the seed), up to SQS's 1 MiB less the
	// message's attribute: bodies above the claim-check threshold travel
	// through S3. Zero: small JSON bodies (about 60 bytes).
	BodyBytes BodyBytes `yaml:"body_bytes"`
}

// BodyBytes bounds the sizes of a scenario's bodies.
type BodyBytes struct {
	Min int `yaml:"min"`
	Max int `yaml:"max"`
}

// MaxBodyBytes is the largest body a scenario may ask for: SQS's 1 MiB
// less room for the tenant attribute.
const MaxBodyBytes = 1<<20 - 1<<10

// Target is the simulated consumer.
type Target struct {
	// Capacity is how many calls per second it takes; calls beyond it
	// fail as throttled.
	Capacity int `yaml:"capacity"`
	// Latency is how long each call takes.
	Latency time.Duration `yaml:"latency"`
	// Health is its condition over time, phases in increasing order of At;
	// before the first phase it is healthy.
	Health []Phase `yaml:"health"`
}

// Phase is one stretch of the target's health timeline.
type Phase struct {
	// At is when the phase starts.
	At time.Duration `yaml:"at"`
	// State is "healthy", "down" or "degraded".
	State string `yaml:"state"`
	// ErrorRate is the share of calls that fail while degraded, in (0, 1];
	// only for "degraded".
	ErrorRate float64 `yaml:"error_rate"`
}

// Breaker mirrors breaker.Policy field for field (a conversion keeps the
// two in step) with snake_case names for scenario files.
type Breaker struct {
	ConsecutiveFailures  int           `yaml:"consecutive_failures"`
	WindowSize           int           `yaml:"window_size"`
	MinimumCalls         int           `yaml:"minimum_calls"`
	FailureRateThreshold float64       `yaml:"failure_rate_threshold"`
	CooldownBase         time.Duration `yaml:"cooldown_base"`
	CooldownMultiplier   float64       `yaml:"cooldown_multiplier"`
	CooldownMax          time.Duration `yaml:"cooldown_max"`
	Jitter               float64       `yaml:"jitter"`
	HalfOpenPermits      int           `yaml:"half_open_permits"`
	CanaryLease          time.Duration `yaml:"canary_lease"`
	SuccessesToClose     int           `yaml:"successes_to_close"`
	PollInterval         time.Duration `yaml:"poll_interval"`
	ThrottlePause        time.Duration `yaml:"throttle_pause"`
}

// Policy is b as the breaker's policy.
func (b Breaker) Policy() breaker.Policy { return breaker.Policy(b) }

// Retry is the per-message retry: a message's tries are spaced by an
// exponential backoff from BackoffBase, doubling, capped at BackoffMax,
// and after MaxAttempts failed tries it is parked.
type Retry struct {
	// MaxAttempts is how many tries a message gets.
	MaxAttempts int `yaml:"max_attempts"`
	// BackoffBase is the wait after the first failed try.
	BackoffBase time.Duration `yaml:"backoff_base"`
	// BackoffMax caps the wait.
	BackoffMax time.Duration `yaml:"backoff_max"`
}

// Bulk is the fixed-rate bulk move: every Every, if the DLQ holds
// messages, a move task sends them back to the source queue at Rate per
// second; the consumer's event source takes them with up to Concurrency
// calls at once, and a message received MaxReceiveCount times without
// success goes back to the DLQ.
type Bulk struct {
	// Rate is the move task's messages per second (SQS's
	// MaxNumberOfMessagesPerSecond, at most 500).
	Rate int `yaml:"rate"`
	// Every is how often a move task is started while the DLQ holds
	// messages (an operator's cron job).
	Every time.Duration `yaml:"every"`
	// MaxReceiveCount is the source queue's redrive policy.
	MaxReceiveCount int `yaml:"max_receive_count"`
	// VisibilityTimeout is the source queue's: a failed message is
	// received again after it.
	VisibilityTimeout time.Duration `yaml:"visibility_timeout"`
	// Concurrency is the event source's maximum concurrency (calls in
	// flight at once), 2 to 1000 as Lambda allows.
	Concurrency int `yaml:"concurrency"`
}

// Health states of a Phase.
const (
	StateHealthy  = "healthy"
	StateDown     = "down"
	StateDegraded = "degraded"
)

// Default is the default scenario (scenarios/default.yaml says the same):
// the consumer (50 calls per second) goes down 2 minutes in, for 30
// minutes, and 5,000 messages are dead-lettered at 5 per second from then.
func Default() Scenario {
	return Scenario{
		Name:        "default",
		Description: "5,000 messages dead-lettered while a 50 calls/s consumer is down for 30 minutes",
		Seed:        1,
		Horizon:     3 * time.Hour,
		Messages:    Messages{Count: 5000, Start: 2 * time.Minute, Rate: 5, Poison: 0.01, Tenants: 1},
		Target: Target{
			Capacity: 50,
			Latency:  100 * time.Millisecond,
			Health: []Phase{
				{At: 2 * time.Minute, State: StateDown},
				{At: 32 * time.Minute, State: StateHealthy},
			},
		},
		Retry: Retry{MaxAttempts: 5, BackoffBase: 30 * time.Second, BackoffMax: 15 * time.Minute},
		Bulk: Bulk{
			Rate:              100,
			Every:             15 * time.Minute,
			MaxReceiveCount:   3,
			VisibilityTimeout: 30 * time.Second,
			Concurrency:       20,
		},
	}
}
