package emulator

import (
	"github.com/redrive/redrive/tasks/message"
	"github.com/redrive/redrive/tasks/target"
)

// defaults are the functions' settings the emulator uses unless the
// caller's Getenv sets them: every message on the breaker "orders", and
// the simulated consumer's PoisonMessage errors classified as poison.
var defaults = map[string]string{
	message.EnvKeyDefault:      "orders",
	target.EnvPoisonErrorTypes: poisonErrorType,
}

// settings is the functions' environment: wiring (the variables that
// connect the functions to the emulator) first, then the caller's
// variables, then defaults.
func settings(wiring map[string]string, user func(string) string) func(string) string {
	return func(name string) string {
		if v, ok := wiring[name]; ok {
			return v
		}
		if v := user(name); v != "" {
			return v
		}
		return defaults[name]
	}
}
