package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrInvalid matches every *VarError, so callers can tell a configuration
// problem from others with errors.Is.
var ErrInvalid = errors.New("config: invalid environment")

// VarError names one bad environment variable, its value and what is wrong.
type VarError struct {
	// Name is the variable, e.g. "BREAKER_WINDOW_SIZE".
	Name string
	// Value is the variable's value as set; empty when unset.
	Value string
	// Problem says what the value must be instead.
	Problem string
}

// Error implements error.
func (e *VarError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("config: %s: %s", e.Name, e.Problem)
	}
	return fmt.Sprintf("config: %s=%q: %s", e.Name, e.Value, e.Problem)
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *VarError) Unwrap() error { return ErrInvalid }

// Env reads variables through a getenv function and collects every problem,
// so one cold start reports all of them. It is not safe for concurrent use;
// it is meant to be used once, at start.
type Env struct {
	getenv func(string) string
	errs   []error
}

// From returns an Env reading through getenv (os.Getenv in a main, a map
// lookup in tests); nil reads every variable as unset.
func From(getenv func(string) string) *Env {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return &Env{getenv: getenv}
}

// Value returns name's value with surrounding spaces trimmed; "" when unset.
func (e *Env) Value(name string) string {
	return strings.TrimSpace(e.getenv(name))
}

// Fail records a problem with name (and its current value).
func (e *Env) Fail(name, problem string) {
	e.errs = append(e.errs, &VarError{Name: name, Value: e.Value(name), Problem: problem})
}

// FailAll records each of problems, as Fail: by its variable and that
// variable's current value. It is how a FromEnv reports what a Config's
// own checks found.
func (e *Env) FailAll(problems []*VarError) {
	for _, p := range problems {
		e.Fail(p.Name, p.Problem)
	}
}

// Join returns problems joined as one error, as a Config's Validate
// returns them; nil when there is none.
func Join(problems []*VarError) error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// Err returns every problem recorded so far, joined; nil when there is none.
func (e *Env) Err() error {
	return errors.Join(e.errs...)
}

// Split returns the errors err joins (an Env.Err, a Validate result, any
// errors.Join), joins within joins flattened, so each can be reported on
// its own; err alone if it joins none, nil if err is nil.
func Split(err error) []error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		if err == nil {
			return nil
		}
		return []error{err}
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, Split(e)...)
	}
	return out
}

// String returns name's value, or def when unset.
func (e *Env) String(name, def string) string {
	if v := e.Value(name); v != "" {
		return v
	}
	return def
}

// Required returns name's value and records a problem when it is unset.
func (e *Env) Required(name string) string {
	v := e.Value(name)
	if v == "" {
		e.Fail(name, "required but not set")
	}
	return v
}

// Int returns name as a base-10 integer, or def when unset.
func (e *Env) Int(name string, def int) int {
	return parse(e, name, def, func(s string) (int, error) { return strconv.Atoi(s) }, "want an integer, e.g. 5")
}

// PositiveInt is Int for values that must be at least 1.
func (e *Env) PositiveInt(name string, def int) int {
	v := e.Int(name, def)
	if v < 1 && e.Value(name) != "" {
		e.Fail(name, "must be at least 1")
	}
	return v
}

// Duration returns name as a Go duration ("30s", "1m30s", "250ms"), or def
// when unset.
func (e *Env) Duration(name string, def time.Duration) time.Duration {
	return parse(e, name, def, time.ParseDuration, `want a duration with a unit, e.g. "30s" or "5m"`)
}

// PositiveDuration is Duration for values that must be greater than zero.
func (e *Env) PositiveDuration(name string, def time.Duration) time.Duration {
	v := e.Duration(name, def)
	if v <= 0 && e.Value(name) != "" {
		e.Fail(name, "must be greater than zero")
	}
	return v
}

// Float returns name as a finite decimal number, or def when unset.
func (e *Env) Float(name string, def float64) float64 {
	return parse(e, name, def, func(s string) (float64, error) {
		f, err := strconv.ParseFloat(s, 64)
		if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
			err = errors.New("not finite")
		}
		return f, err
	}, "want a finite number, e.g. 0.5")
}

// List returns name as a comma-separated list with spaces trimmed and empty
// items dropped, or def when unset.
func (e *Env) List(name string, def []string) []string {
	v := e.Value(name)
	if v == "" {
		return def
	}
	var items []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// parse returns def when name is unset, else its parsed value; a value that
// does not parse records want as the problem and returns def.
func parse[T any](e *Env, name string, def T, parseValue func(string) (T, error), want string) T {
	s := e.Value(name)
	if s == "" {
		return def
	}
	v, err := parseValue(s)
	if err != nil {
		e.Fail(name, want)
		return def
	}
	return v
}
