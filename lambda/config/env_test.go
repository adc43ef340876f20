package config_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/config"
)

// envOf is a getenv over a fixed map.
func envOf(vars map[string]string) *config.Env {
	return config.From(func(name string) string { return vars[name] })
}

// varErrors returns the *VarError values joined in err, in order.
func varErrors(t *testing.T, err error) []*config.VarError {
	t.Helper()
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "Err() returns errors.Join: %v", err)
	var out []*config.VarError
	for _, e := range joined.Unwrap() {
		var verr *config.VarError
		require.ErrorAs(t, e, &verr)
		assert.ErrorIs(t, e, config.ErrInvalid)
		out = append(out, verr)
	}
	return out
}

func TestParsers(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		read    func(e *config.Env) any
		want    any
		problem string // empty: no error expected
	}{
		{name: "string set", value: " orders ", read: func(e *config.Env) any { return e.String("V", "d") }, want: "orders"},
		{name: "string unset", value: "", read: func(e *config.Env) any { return e.String("V", "d") }, want: "d"},
		{name: "string blank is unset", value: "   ", read: func(e *config.Env) any { return e.String("V", "d") }, want: "d"},
		{name: "required set", value: "tbl", read: func(e *config.Env) any { return e.Required("V") }, want: "tbl"},
		{name: "required missing", value: "", read: func(e *config.Env) any { return e.Required("V") }, want: "", problem: "required but not set"},
		{name: "int", value: "42", read: func(e *config.Env) any { return e.Int("V", 7) }, want: 42},
		{name: "int negative", value: "-3", read: func(e *config.Env) any { return e.Int("V", 7) }, want: -3},
		{name: "int unset", value: "", read: func(e *config.Env) any { return e.Int("V", 7) }, want: 7},
		{name: "int bad", value: "4x", read: func(e *config.Env) any { return e.Int("V", 7) }, want: 7, problem: "want an integer"},
		{name: "int fractional", value: "2.5", read: func(e *config.Env) any { return e.Int("V", 7) }, want: 7, problem: "want an integer"},
		{name: "int overflow", value: "99999999999999999999", read: func(e *config.Env) any { return e.Int("V", 7) }, want: 7, problem: "want an integer"},
		{name: "positive int", value: "3", read: func(e *config.Env) any { return e.PositiveInt("V", 7) }, want: 3},
		{name: "positive int unset", value: "", read: func(e *config.Env) any { return e.PositiveInt("V", 7) }, want: 7},
		{name: "positive int zero", value: "0", read: func(e *config.Env) any { return e.PositiveInt("V", 7) }, want: 0, problem: "must be at least 1"},
		{name: "positive int negative", value: "-1", read: func(e *config.Env) any { return e.PositiveInt("V", 7) }, want: -1, problem: "must be at least 1"},
		{name: "positive int bad", value: "one", read: func(e *config.Env) any { return e.PositiveInt("V", 7) }, want: 7, problem: "want an integer"},
		{name: "duration", value: "1m30s", read: func(e *config.Env) any { return e.Duration("V", time.Second) }, want: 90 * time.Second},
		{name: "duration negative", value: "-5m", read: func(e *config.Env) any { return e.Duration("V", time.Second) }, want: -5 * time.Minute},
		{name: "duration unset", value: "", read: func(e *config.Env) any { return e.Duration("V", time.Second) }, want: time.Second},
		{name: "duration without unit", value: "30", read: func(e *config.Env) any { return e.Duration("V", time.Second) }, want: time.Second, problem: "want a duration with a unit"},
		{name: "duration bad", value: "soon", read: func(e *config.Env) any { return e.Duration("V", time.Second) }, want: time.Second, problem: "want a duration"},
		{name: "positive duration", value: "250ms", read: func(e *config.Env) any { return e.PositiveDuration("V", time.Second) }, want: 250 * time.Millisecond},
		{name: "positive duration zero", value: "0s", read: func(e *config.Env) any { return e.PositiveDuration("V", time.Second) }, want: time.Duration(0), problem: "must be greater than zero"},
		{name: "positive duration negative", value: "-1s", read: func(e *config.Env) any { return e.PositiveDuration("V", time.Second) }, want: -time.Second, problem: "must be greater than zero"},
		{name: "float", value: "0.25", read: func(e *config.Env) any { return e.Float("V", 0.5) }, want: 0.25},
		{name: "float unset", value: "", read: func(e *config.Env) any { return e.Float("V", 0.5) }, want: 0.5},
		{name: "float bad", value: "half", read: func(e *config.Env) any { return e.Float("V", 0.5) }, want: 0.5, problem: "want a finite number"},
		{name: "float NaN", value: "NaN", read: func(e *config.Env) any { return e.Float("V", 0.5) }, want: 0.5, problem: "want a finite number"},
		{name: "float infinite", value: "+Inf", read: func(e *config.Env) any { return e.Float("V", 0.5) }, want: 0.5, problem: "want a finite number"},
		{name: "list", value: " A, B ,,C ", read: func(e *config.Env) any { return e.List("V", []string{"d"}) }, want: []string{"A", "B", "C"}},
		{name: "list unset", value: "", read: func(e *config.Env) any { return e.List("V", []string{"d"}) }, want: []string{"d"}},
		{name: "list of nothing", value: ",,", read: func(e *config.Env) any { return e.List("V", []string{"d"}) }, want: []string(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := envOf(map[string]string{"V": tt.value})
			assert.Equal(t, tt.want, tt.read(env))
			errs := varErrors(t, env.Err())
			if tt.problem == "" {
				assert.Empty(t, errs)
				return
			}
			require.Len(t, errs, 1)
			assert.Equal(t, "V", errs[0].Name)
			assert.Equal(t, tt.value, errs[0].Value)
			assert.Contains(t, errs[0].Problem, tt.problem)
			assert.Contains(t, env.Err().Error(), "V")
		})
	}
}

func TestErrorsAreReportedTogether(t *testing.T) {
	env := envOf(map[string]string{
		"MAX_ATTEMPTS": "ten",
		"LEASE":        "-1m",
		"RATE":         "fast",
		"WAIT":         "5",
	})
	env.Required("TABLE_NAME")
	env.PositiveInt("MAX_ATTEMPTS", 10)
	env.PositiveDuration("LEASE", time.Minute)
	env.Float("RATE", 1)
	env.Duration("WAIT", time.Second)
	env.String("OPTIONAL", "x")

	err := env.Err()
	require.Error(t, err)
	var names []string
	for _, verr := range varErrors(t, err) {
		names = append(names, verr.Name)
		assert.Contains(t, err.Error(), verr.Name)
	}
	assert.Equal(t, []string{"TABLE_NAME", "MAX_ATTEMPTS", "LEASE", "RATE", "WAIT"}, names)
}

func TestVarErrorMessage(t *testing.T) {
	assert.Equal(t, `config: WINDOW="abc": want an integer`,
		(&config.VarError{Name: "WINDOW", Value: "abc", Problem: "want an integer"}).Error())
	assert.Equal(t, "config: TABLE_NAME: required but not set",
		(&config.VarError{Name: "TABLE_NAME", Problem: "required but not set"}).Error())
}

func TestFail(t *testing.T) {
	env := envOf(map[string]string{"BREAKER_KEY": "a", "BREAKER_KEY_POINTER": "/b"})
	require.NoError(t, env.Err())
	env.Fail("BREAKER_KEY", "set only one of BREAKER_KEY and BREAKER_KEY_POINTER")
	errs := varErrors(t, env.Err())
	require.Len(t, errs, 1)
	assert.Equal(t, "a", errs[0].Value)
	assert.True(t, errors.Is(env.Err(), config.ErrInvalid))
}

func TestNilGetenvReadsNothing(t *testing.T) {
	env := config.From(nil)
	assert.Equal(t, 3, env.Int("ANY", 3))
	assert.Empty(t, env.Value("ANY"))
	assert.NoError(t, env.Err())
}

func TestSplit(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	env := envOf(map[string]string{"A": "x", "B": "y"})
	env.Int("A", 0)
	env.Int("B", 0)
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{name: "nil", err: nil, want: nil},
		{name: "one error", err: first, want: []string{"first"}},
		{name: "joined", err: errors.Join(first, second), want: []string{"first", "second"}},
		{name: "nested joins", err: errors.Join(errors.Join(first, nil), errors.Join(second)), want: []string{"first", "second"}},
		{name: "wrapped join is one error", err: fmt.Errorf("ctx: %w", errors.Join(first, second)), want: []string{"ctx: first\nsecond"}},
		{name: "env problems", err: env.Err(), want: []string{`config: A="x": want an integer, e.g. 5`, `config: B="y": want an integer, e.g. 5`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, err := range config.Split(tt.err) {
				got = append(got, err.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
