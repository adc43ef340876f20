package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redrive/redrive/breaker"
)

// policyVar ties one breaker.Policy field to the variable that sets it.
type policyVar struct {
	name  string // the environment variable
	field string // the breaker.Policy field, as breaker.PolicyError names it
	read  func(e *Env, name string, p *breaker.Policy)
}

// PolicyVariables lists the BREAKER_* variables Policy reads, one per
// breaker.Policy field, so a deployment can reject a name the tasks would
// silently ignore.
func PolicyVariables() []string {
	names := make([]string, len(policyVars))
	for i, v := range policyVars {
		names[i] = v.name
	}
	return names
}

// policyVars lists every breaker.Policy field's variable. Unset (or 0) means
// the field's documented default; negative values disable what the Policy
// documents as disable-able.
var policyVars = []policyVar{
	{"BREAKER_CONSECUTIVE_FAILURES", "ConsecutiveFailures", func(e *Env, n string, p *breaker.Policy) { p.ConsecutiveFailures = e.Int(n, 0) }},
	{"BREAKER_WINDOW_SIZE", "WindowSize", func(e *Env, n string, p *breaker.Policy) { p.WindowSize = e.Int(n, 0) }},
	{"BREAKER_MINIMUM_CALLS", "MinimumCalls", func(e *Env, n string, p *breaker.Policy) { p.MinimumCalls = e.Int(n, 0) }},
	{"BREAKER_FAILURE_RATE", "FailureRateThreshold", func(e *Env, n string, p *breaker.Policy) { p.FailureRateThreshold = e.Float(n, 0) }},
	{"BREAKER_COOLDOWN_BASE", "CooldownBase", func(e *Env, n string, p *breaker.Policy) { p.CooldownBase = e.Duration(n, 0) }},
	{"BREAKER_COOLDOWN_MULTIPLIER", "CooldownMultiplier", func(e *Env, n string, p *breaker.Policy) { p.CooldownMultiplier = e.Float(n, 0) }},
	{"BREAKER_COOLDOWN_MAX", "CooldownMax", func(e *Env, n string, p *breaker.Policy) { p.CooldownMax = e.Duration(n, 0) }},
	{"BREAKER_JITTER", "Jitter", func(e *Env, n string, p *breaker.Policy) { p.Jitter = e.Float(n, 0) }},
	{"BREAKER_HALF_OPEN_PERMITS", "HalfOpenPermits", func(e *Env, n string, p *breaker.Policy) { p.HalfOpenPermits = e.Int(n, 0) }},
	{"BREAKER_CANARY_LEASE", "CanaryLease", func(e *Env, n string, p *breaker.Policy) { p.CanaryLease = e.Duration(n, 0) }},
	{"BREAKER_SUCCESSES_TO_CLOSE", "SuccessesToClose", func(e *Env, n string, p *breaker.Policy) { p.SuccessesToClose = e.Int(n, 0) }},
	{"BREAKER_POLL_INTERVAL", "PollInterval", func(e *Env, n string, p *breaker.Policy) { p.PollInterval = e.Duration(n, 0) }},
	{"BREAKER_THROTTLE_PAUSE", "ThrottlePause", func(e *Env, n string, p *breaker.Policy) { p.ThrottlePause = e.Duration(n, 0) }},
}

// fieldNames rewrites Policy field names in a problem ("must be at most
// WindowSize (20)") into their variables.
var fieldNames = func() *strings.Replacer {
	var pairs []string
	for _, v := range policyVars {
		pairs = append(pairs, v.field, v.name)
	}
	return strings.NewReplacer(pairs...)
}()

// Policy reads the breaker policy from the BREAKER_* variables (see
// policyVars for the list) and checks it with breaker.Policy.Validate. Each
// problem is recorded in env under the variable of the field it is about; a
// field left at its default is reported with the default's value, e.g.
// `config: BREAKER_MINIMUM_CALLS: 10 (the default): must be at most
// BREAKER_WINDOW_SIZE (5)`. On problems the returned policy is not usable.
func Policy(env *Env) breaker.Policy {
	var p breaker.Policy
	for _, v := range policyVars {
		v.read(env, v.name, &p)
	}
	for _, err := range Split(p.Validate()) {
		perr, ok := errors.AsType[*breaker.PolicyError](err)
		if !ok { // Validate documents none; kept rather than dropped
			env.Fail("BREAKER_*", err.Error())
			continue
		}
		name := variableOf(perr.Field)
		problem := fieldNames.Replace(perr.Problem)
		if env.Value(name) == "" {
			problem = fmt.Sprintf("%v (the default): %s", perr.Value, problem)
		}
		env.Fail(name, problem)
	}
	return p
}

// variableOf is the variable that sets the Policy field; the field's own
// name if none does.
func variableOf(field string) string {
	for _, v := range policyVars {
		if v.field == field {
			return v.name
		}
	}
	return field
}
