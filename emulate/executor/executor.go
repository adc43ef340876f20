package executor

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/quota"
)

// Options configures an Executor. Zero values mean the documented defaults.
//
// Memory: by default an executor keeps every execution it ran, as the
// simulations that read them back need. A long-running executor (behind
// the HTTP facades) bounds its memory with Retention: it then holds its
// state machines, the running executions and those that stopped less than
// Retention ago, and nothing of an evicted execution, not even the timers
// it left on the timeline (stale timers are dropped as the timeline
// grows). FinishedHistories further bounds the histories of the finished
// executions held, but not their descriptions.
type Options struct {
	// Invoker resolves Task resources to Lambda functions. Required to run
	// Task states.
	Invoker Invoker
	// Scaled, if set, runs the executor on that scaled wall clock: Waits,
	// timeouts and Delay take their time divided by its scale (like Step
	// Functions Local's WAIT_TIME_SCALE), and handlers run concurrently.
	// Default nil: a virtual clock starting at Start.
	Scaled *clock.Scaled
	// Start is the virtual clock's start. Default 2026-01-01T00:00:00Z.
	Start time.Time
	// Seed seeds the executor's randomness (retry jitter, UUIDs). Default 1.
	Seed int64
	// Workers is how many goroutines run events due at the same virtual
	// instant. Default 1 (fully deterministic).
	Workers int
	// Region and Account are used in ARNs. Defaults "us-east-1" and
	// "123456789012".
	Region  string
	Account string
	// FinishedHistories bounds the memory of long runs: only the histories
	// of the FinishedHistories executions that finished last are kept
	// (History of an earlier one fails with ErrHistoryEvicted); every
	// execution's description (status, output, transitions) is kept.
	// Default 0: every history is kept.
	FinishedHistories int
	// RunningHistories bounds how many executions record their history
	// at once: an execution that starts while that many others are
	// recording (they have not ended yet) records none, but for the
	// count of its events (the 25,000-event quota still applies), and
	// History fails for it with ErrHistoryNotRecorded. The first
	// executions of a run and those that start as others end make the
	// sample; FinishedHistories then bounds what is kept of them once
	// they end. For simulations with many executions waiting at once;
	// not with Snapshot, which needs every running execution's history.
	// Default 0: every execution records its history.
	RunningHistories int
	// Compact keeps no execution's input text, only a hash of it for
	// StartExecution's idempotency check, and only a summary of the
	// finished executions whose history FinishedHistories dropped: their
	// status, name, dates, error, cause and transitions, not their output
	// (about 150 bytes and the name each, their lookups included, where
	// one held whole costs five times that); their names stay taken and
	// their task tokens answer as before (ErrTaskTimedOut).
	// DescribeExecution, ListExecutions and Finished then describe
	// executions without their input (and those without their output).
	// With Finished, a simulation reads what it needs of each execution
	// as it ends and holds memory for what runs, not for everything that
	// ran. Its task tokens are 40 characters instead of the 672 of AWS's
	// (a waiting room holds a million). Not with Snapshot, which needs
	// the inputs. Default false.
	Compact bool
	// Finished, if set, is called once for each execution that ends
	// (succeeds, fails, times out or is aborted), with its description,
	// in the order they end. It runs on the executor's goroutine with the
	// execution locked: it must be quick and must not call the executor,
	// but for At (which only puts an event on the timeline).
	// Executions restored by Restore do not end again.
	Finished func(Execution)
	// Quotas, if set, holds the executor to an AWS account's quotas
	// (package quota): StartExecution is throttled past its bucket
	// (ErrThrottled) and refused past the open Standard executions
	// (ErrExecutionLimitExceeded), a state transition past the account's
	// bucket waits for its token, SendTask* calls past theirs are
	// throttled (the account's Lambda concurrency is the Invoker's:
	// LimitConcurrency). Not with Snapshot. Default nil: no quotas.
	Quotas *quota.Account
	// Retention evicts an execution entirely, description and history,
	// once Retention has passed on the executor's clock since it stopped,
	// as AWS forgets executions 90 days after they close: DescribeExecution
	// and History then fail with ErrExecutionDoesNotExist, ListExecutions
	// omits it, its task tokens fail with ErrTaskDoesNotExist, and its name
	// may be used again. Evictions happen as the timeline runs (and, on a
	// scaled clock, while it is idle). Default 0: executions are kept.
	Retention time.Duration
}

// Executor runs state machines. It is safe for concurrent use; its methods
// may be called from inside the Lambda handlers it invokes.
//
// Executions advance only while Run or RunUntil processes the timeline. In
// virtual mode (the default) a handler runs while the clock stands still:
// it consumes time only through Delay, so a handler must not block on wall
// time (an Invoker calling a Lambda endpoint over HTTP should have a client
// timeout). With Workers 1, a given Seed replays identically: scheduling,
// generated names, retry jitter, States.UUID and request ids. In virtual
// mode each handler runs on a coroutine (iter.Pull) that the run loop
// switches to: a handler must not stay locked to its thread
// (runtime.LockOSThread) when it returns or calls Delay, and Run must not
// be called from a goroutine locked to its thread; the Go runtime may stop
// the process otherwise. Close ends the goroutines it started.
type Executor struct {
	opts Options
	// ratesTransitions says Options.Quotas has a bucket of state
	// transitions, which every transition then takes from.
	ratesTransitions bool
	clock            timebase // Options.Scaled, or a virtual clock
	sched            scheduler
	// tokenKey authenticates the task tokens the executor issues; it
	// derives from the Seed, so tokens replay too.
	tokenKey []byte
	// inputSeed hashes the inputs Options.Compact keeps as hashes.
	inputSeed maphash.Seed

	// mu guards rng, machines, created and started, and the state
	// machines' records. Compaction takes it with an execution's mu held;
	// nothing takes an execution's mu with it held, but StartExecution
	// that of a new execution, not yet published.
	mu       sync.Mutex
	rng      rand.PCG
	machines map[string]*stateMachine
	created  []*stateMachine // every state machine, in creation order
	// started is the number of executions started, the next one's index
	// (see record.index).
	started uint64

	// histories holds the finished executions whose histories are kept,
	// when Options.FinishedHistories bounds them; retained those not yet
	// evicted, when Options.Retention does.
	histories, retained finishedQueue
	// recording counts the running executions recording a history, when
	// Options.RunningHistories bounds them.
	recording atomic.Int64

	// handlers counts the Lambda handlers running on a scaled clock; pool
	// counts the goroutines that run them, and idlers those of them
	// waiting for the next one on waiting (goHandler). routines runs the
	// handlers on a virtual clock, and suspended lists those of them
	// waiting in Delay. closed is set, and done closed, by Close.
	handlers  sync.WaitGroup
	pool      sync.WaitGroup
	waiting   chan func()
	idlers    atomic.Int64
	routines  routines
	suspended suspendedCalls
	closed    atomic.Bool
	done      chan struct{}
	closeOnce sync.Once
}

// New returns an executor with opts.
func New(opts Options) *Executor {
	if opts.Start.IsZero() {
		opts.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.Workers < 1 {
		opts.Workers = 1
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.Account == "" {
		opts.Account = "123456789012"
	}
	key := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("redrive emulate/executor task token "+opts.Region+" "+opts.Account+" "), uint64(opts.Seed)))
	e := &Executor{
		opts:             opts,
		ratesTransitions: opts.Quotas != nil && opts.Quotas.Has(quota.Transitions),
		clock:            newTimebase(opts),
		tokenKey:         key[:],
		inputSeed:        maphash.MakeSeed(),
		rng:              *rand.NewPCG(uint64(opts.Seed), 0x5eed),
		machines:         map[string]*stateMachine{},
		done:             make(chan struct{}),
		waiting:          make(chan func()),
	}
	e.sched.kick = make(chan struct{}, 1)
	return e
}

// Now is the executor's clock, virtual or scaled: the time of its
// histories, and the time its handlers read (see Clock).
func (e *Executor) Now() time.Time { return clockTime(e.clock.now()) }
