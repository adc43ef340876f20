package wire

import (
	"errors"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/starter"
)

// AttemptConfig is the attempt function's settings: the breaker table and
// policy, the per-message retry, and the target.
type AttemptConfig struct {
	// Table is TABLE_NAME, the table of breaker rows and delivery records.
	// Required.
	Table string
	// Policy is the breaker policy from the BREAKER_* variables; zero
	// fields mean the breaker's defaults.
	Policy breaker.Policy
	// Retry is the attempt task's own settings (MAX_ATTEMPTS, BACKOFF_BASE,
	// BACKOFF_MAX, DELIVERY_LEASE, ...); zero fields mean defaults.
	Retry attempt.Config
	// Target is where messages are delivered (TARGET_*,
	// POISON_ERROR_TYPES, THROTTLE_ERROR_TYPES).
	Target target.Config
	// Room is the waiting room the attempt sends waiting messages to.
	Room RoomConfig
	// BodyBucket is BODY_BUCKET, where the bodies too large for a document
	// are kept (claimcheck); empty, none is.
	BodyBucket string
}

// AttemptConfigFromEnv reads an AttemptConfig through getenv; the error
// names every bad variable.
func AttemptConfigFromEnv(getenv func(string) string) (AttemptConfig, error) {
	retry, retryErr := attempt.ConfigFromEnv(getenv)
	env := config.From(getenv)
	table := env.Required(admin.EnvTable)
	c := AttemptConfig{
		Table:  table,
		Policy: config.Policy(env),
		Retry:  retry,
		Target: target.FromEnv(env),
		Room:   RoomConfigFromEnv(env, table),

		BodyBucket: env.Value(claimcheck.EnvBucket),
	}
	return c, errors.Join(retryErr, env.Err())
}

// Validate reports every problem with c, each naming its variable or
// policy field; nil when c is usable.
func (c AttemptConfig) Validate() error {
	return errors.Join(tableProblem(c.Table), c.Retry.Validate(), c.Policy.Validate(), c.Target.Validate(), c.Room.Validate())
}

// tableProblem reports an unset TABLE_NAME; nil when it is set.
func tableProblem(table string) error {
	if table == "" {
		return &config.VarError{Name: admin.EnvTable, Problem: "required but not set"}
	}
	return nil
}

// Config is every function's settings, for a host that runs all six
// (waitroom and release read the attempt's room settings).
type Config struct {
	Starter starter.Config
	Attempt AttemptConfig
	Park    park.Config
	Admin   admin.Config
}

// ConfigFromEnv reads every function's settings from one environment, as
// a local host has it. A bad variable that several functions read is
// reported once.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var errs [4]error
	c.Starter, errs[0] = starter.ConfigFromEnv(getenv)
	c.Attempt, errs[1] = AttemptConfigFromEnv(getenv)
	c.Park, errs[2] = park.ConfigFromEnv(getenv)
	c.Admin, errs[3] = admin.ConfigFromEnv(getenv)
	return c, distinct(errs[:])
}

// distinct joins the errors in errs (each possibly a join itself), leaving
// out any whose message repeats an earlier one's.
func distinct(errs []error) error {
	var out []error
	seen := map[string]bool{}
	for _, err := range errs {
		for _, e := range config.Split(err) {
			if msg := e.Error(); !seen[msg] {
				seen[msg] = true
				out = append(out, e)
			}
		}
	}
	return errors.Join(out...)
}
