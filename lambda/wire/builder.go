package wire

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/lotindex"
	"github.com/redrive/redrive/park/replay"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/rules"
	"github.com/redrive/redrive/starter"
)

// ErrMissingClient matches the error of a build whose function needs a
// client that Deps.Clients lacks.
var ErrMissingClient = errors.New("wire: missing client")

// Offsets of each source of randomness from the Builder's seed, so one
// seed replays a run and no two sources share a sequence. Recorded local
// runs depend on these values.
const (
	seedAttemptBreaker = iota
	seedAdminBreaker
	seedBackoff
	seedStarterBreaker
	seedRoomBreaker
	seedReleaseBreaker
)

// Builder builds handlers on one set of Deps: the handlers it builds share
// its logger and metric writer, and each breaker it builds reports its
// state changes to both and to Deps.Observe. Build at start, from one
// goroutine.
type Builder struct {
	deps     Deps
	seed     uint64
	metrics  *telemetry.Metrics
	breakers []*breaker.Breaker
}

// NewBuilder returns a Builder on d, its zero fields defaulted.
func NewBuilder(d Deps) *Builder {
	d = d.withDefaults()
	seed := d.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	return &Builder{deps: d, seed: seed, metrics: telemetry.NewMetrics(d.MetricLines, d.Logger, d.Clock)}
}

// Breakers returns the breakers built so far, for their Stats.
func (b *Builder) Breakers() []*breaker.Breaker {
	return append([]*breaker.Breaker(nil), b.breakers...)
}

// Starter builds the starter. It needs Clients.SFN and
// Clients.ParkingLot, and with TABLE_NAME set Clients.DynamoDB: for the
// breakers' states, the arrival pace, the waiting room (and its
// controllers), the parking lot's index and, with TARGET_KIND=sqs, the
// failures it records on the breaker.
func (b *Builder) Starter(cfg starter.Config) (*starter.Handler, error) {
	c := b.deps.Clients
	if err := errors.Join(cfg.Validate(), needs("starter",
		need{"SFN", c.SFN != nil}, need{"ParkingLot", c.ParkingLot != nil},
		need{"DynamoDB", c.DynamoDB != nil || cfg.Table == ""}, need{"S3", c.S3 != nil || cfg.BodyBucket == ""})); err != nil {
		return nil, fmt.Errorf("wire: starter: %w", err)
	}
	h := &starter.Handler{
		SFN: c.SFN, Lot: b.lot(cfg.Lot, cfg.Table), Config: cfg, Metrics: b.metrics, Logger: b.deps.Logger, Clock: b.deps.Clock,
	}
	if bodies := b.bodies(cfg.BodyBucket); bodies != nil {
		h.Bodies, h.RoomBodies = bodies, bodies.ForRoom()
	}
	if cfg.Table != "" {
		h.Gate = pace.NewStore(c.DynamoDB, cfg.Table)
		h.Rules = b.rules(cfg.Table)
		br, err := b.breaker("starter", dynamo.New(c.DynamoDB, cfg.Table), cfg.Policy, seedStarterBreaker, 0)
		if err != nil {
			return nil, err
		}
		h.Breaker, h.States = br, starter.NewStates(br, b.deps.Clock)
		h.Room, h.Launcher = b.room(RoomConfig{Table: cfg.Table, ReleaseStateMachineARN: cfg.ControllerStateMachineARN, TTL: cfg.RoomTTL, Pace: cfg.Pace})
	}
	return h, nil
}

// Attempt builds the attempt handler: its breaker (on Deps.WrapStore's
// store, if set), the delivery ledger, the target (wrapped by
// Deps.WrapTarget, if set), and its retry settings, validated and
// defaulted here once. It needs Clients.DynamoDB and the target's client
// in Clients.Delivery.
func (b *Builder) Attempt(cfg AttemptConfig) (*attempt.Handler, error) {
	c := b.deps.Clients
	if err := errors.Join(cfg.Validate(), needs("attempt", need{"DynamoDB", c.DynamoDB != nil}, need{"SFN", c.SFN != nil},
		need{"S3", c.S3 != nil || cfg.BodyBucket == ""})); err != nil {
		return nil, fmt.Errorf("wire: attempt: %w", err)
	}
	tgt, err := target.New(cfg.Target, c.Delivery)
	if err != nil {
		return nil, fmt.Errorf("wire: attempt: %w", err)
	}
	if b.deps.WrapTarget != nil {
		tgt = b.deps.WrapTarget(tgt)
	}
	var store breaker.Store = dynamo.New(c.DynamoDB, cfg.Table)
	if b.deps.WrapStore != nil {
		store = b.deps.WrapStore(store)
	}
	br, err := b.breaker("attempt", store, cfg.Policy, seedAttemptBreaker, AttemptClosedRowMaxAge)
	if err != nil {
		return nil, err
	}
	rm, launcher := b.room(cfg.Room)
	retry := cfg.Retry.WithDefaults() // validated above; the handler uses it as is
	var bodies attempt.Redeemer       // a nil interface, not a nil *Store, without a bucket
	if s := b.bodies(cfg.BodyBucket); s != nil {
		bodies = s
	}
	h, err := attempt.New(attempt.Handler{
		Breaker:  br,
		Ledger:   delivery.New(c.DynamoDB, cfg.Table, b.deps.Clock),
		Target:   tgt,
		Metrics:  b.metrics,
		Logger:   b.deps.Logger,
		Clock:    b.deps.Clock,
		Rand:     breaker.NewRandom(b.seed + seedBackoff),
		Launcher: launcher,
		Bodies:   bodies,
		Rules:    b.rules(cfg.Table),
		Turns:    waitroom.Turns{Room: rm},
		Pauses:   launcher.Pace,
		Config:   retry,
	})
	if err != nil {
		return nil, fmt.Errorf("wire: attempt: %w", err)
	}
	return h, nil
}

// rules is the routing rules of table, read through a cache on the
// builder's clock.
func (b *Builder) rules(table string) *rules.Cache {
	return rules.NewCache(rules.NewStore(b.deps.Clients.DynamoDB, table), b.deps.Clock, b.deps.Logger)
}

// Park builds the park handler. It needs Clients.ParkingLot, and with
// TABLE_NAME set Clients.DynamoDB for the parking lot's index.
func (b *Builder) Park(cfg park.Config) (*park.Handler, error) {
	c := b.deps.Clients
	if err := errors.Join(cfg.Validate(), needs("park",
		need{"ParkingLot", c.ParkingLot != nil}, need{"DynamoDB", c.DynamoDB != nil || cfg.Table == ""},
		need{"S3", c.S3 != nil || cfg.BodyBucket == ""})); err != nil {
		return nil, fmt.Errorf("wire: park: %w", err)
	}
	h := &park.Handler{Lot: b.lot(cfg.Lot, cfg.Table), Clock: b.deps.Clock}
	if cfg.Table != "" {
		h.Turns = waitroom.Turns{Room: room.New(c.DynamoDB, cfg.Table, DefaultRoomTTL)}
	}
	if cfg.FIFOOnPark == park.FIFOHold {
		h.Holds = rules.NewStore(c.DynamoDB, cfg.Table)
	}
	if s := b.bodies(cfg.BodyBucket); s != nil {
		h.Bodies = s
	}
	return h, nil
}

// Admin builds the admin handler, which starts the breaker's controller
// after a command that lets messages through. It needs
// Clients.DynamoDB and Clients.SFN. Its breaker has the default policy:
// commands read none.
func (b *Builder) Admin(cfg admin.Config, rc RoomConfig) (*admin.Handler, error) {
	c := b.deps.Clients
	if err := errors.Join(tableProblem(cfg.Table), rc.Validate(),
		needs("admin", need{"DynamoDB", c.DynamoDB != nil}, need{"SFN", c.SFN != nil})); err != nil {
		return nil, fmt.Errorf("wire: admin: %w", err)
	}
	store := dynamo.New(c.DynamoDB, cfg.Table)
	br, err := b.breaker("admin", store, breaker.Policy{}, seedAdminBreaker, 0)
	if err != nil {
		return nil, err
	}
	_, launcher := b.room(rc)
	h := &admin.Handler{Breaker: br, Launcher: launcher, Repair: store, Logger: b.deps.Logger, Clock: b.deps.Clock,
		Rules: rules.NewStore(c.DynamoDB, cfg.Table)}
	if cfg.Replays() {
		if err := needs("admin", need{"Replay", c.Replay != nil}); err != nil {
			return nil, fmt.Errorf("wire: admin: %w", err)
		}
		if h.Replayer, err = replay.New(c.Replay, c.DynamoDB, b.deps.Clock, b.deps.Logger,
			replay.Config{ParkingLotURL: cfg.ParkingLotURL, DLQURL: cfg.DLQURL, Table: cfg.Table, ShortPoll: cfg.ReplayShortPoll}); err != nil {
			return nil, fmt.Errorf("wire: admin: %w", err)
		}
	}
	return h, nil
}

// bodies is the claim-check store in bucket; nil when bucket is empty.
func (b *Builder) bodies(bucket string) *claimcheck.Store {
	if bucket == "" {
		return nil
	}
	return &claimcheck.Store{S3: b.deps.Clients.S3, Bucket: bucket}
}

// lot is the parking lot at cfg, indexed in table unless it is empty.
func (b *Builder) lot(cfg park.LotConfig, table string) *park.Lot {
	l := &park.Lot{SQS: b.deps.Clients.ParkingLot, Config: cfg, Metrics: b.metrics, Logger: b.deps.Logger, Clock: b.deps.Clock}
	if table != "" {
		l.Index = lotindex.New(b.deps.Clients.DynamoDB, table)
	}
	return l
}

// AttemptClosedRowMaxAge is how old a CLOSED breaker row the attempt
// function admits on (breaker.Options.ClosedRowMaxAge): its row is read at
// most once a second per warm function, and a trip is noticed at most a
// second late by the functions that did not make it.
const AttemptClosedRowMaxAge = time.Second

// breaker builds function's breaker on store, seeded at offset from the
// Builder's seed, admitting on a CLOSED row up to maxAge old, and keeps it
// for Breakers.
func (b *Builder) breaker(function string, store breaker.Store, p breaker.Policy, offset uint64, maxAge time.Duration) (*breaker.Breaker, error) {
	br, err := breaker.New(store, p, breaker.Options{Clock: b.deps.Clock, Random: breaker.NewRandom(b.seed + offset), Observer: b.observe,
		ClosedRowMaxAge: maxAge})
	if err != nil {
		return nil, fmt.Errorf("wire: %s: breaker: %w", function, err)
	}
	b.breakers = append(b.breakers, br)
	return br, nil
}

// observe reports a breaker state change as a metric and a log line, then
// to Deps.Observe.
func (b *Builder) observe(t breaker.Transition) {
	b.metrics.OnTransition(t)
	if b.deps.Observe != nil {
		b.deps.Observe(t)
	}
}

// need is one client a function needs, and whether Clients has it.
type need struct {
	client string
	ok     bool
}

// needs returns an ErrMissingClient naming every client in list that
// function lacks; nil when it lacks none.
func needs(function string, list ...need) error {
	var missing []string
	for _, n := range list {
		if !n.ok {
			missing = append(missing, "Clients."+n.client)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: the %s function needs %s", ErrMissingClient, function, strings.Join(missing, " and "))
}
