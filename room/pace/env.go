package pace

import (
	"errors"

	"github.com/redrive/redrive/lambda/config"
)

// The environment variables a Policy is read from.
const (
	EnvStartRate = "RELEASE_START_RATE"
	EnvMaxRate   = "RELEASE_MAX_RATE"
	EnvBackoff   = "RELEASE_BACKOFF"
	EnvTick      = "RELEASE_TICK"
	EnvLease     = "RELEASE_LEASE"
)

// PolicyFromEnv reads a Policy through env (unset: the defaults) and
// records an invalid one in env, naming its variable.
func PolicyFromEnv(env *config.Env) Policy {
	p := Policy{
		Start:   env.Float(EnvStartRate, 0),
		Max:     env.Float(EnvMaxRate, 0),
		Backoff: env.Float(EnvBackoff, 0),
		Tick:    env.Duration(EnvTick, 0),
		Lease:   env.Duration(EnvLease, 0),
	}
	if err := p.Validate(); err != nil {
		env.Fail(Variable(err), err.Error())
	}
	return p
}

// Variable names the variable behind a Validate error of a Policy.
func Variable(err error) string {
	pe, ok := errors.AsType[*PolicyError](err)
	if !ok {
		return "RELEASE_*"
	}
	return map[string]string{"Start": EnvStartRate, "Max": EnvMaxRate, "Backoff": EnvBackoff,
		"Tick": EnvTick, "Lease": EnvLease}[pe.Field]
}
