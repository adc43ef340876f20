// Package config reads a task's settings from environment variables once, at
// cold start, and reports every bad variable together, each by name:
//
//	env := config.From(os.Getenv)
//	table := env.Required("TABLE_NAME")
//	lease := env.PositiveDuration("DELIVERY_LEASE", time.Minute)
//	policy := config.Policy(env)
//	if err := env.Err(); err != nil {
//		return err // e.g. config: BREAKER_WINDOW_SIZE="abc": want an integer
//	}
//
// An unset or empty variable (after trimming spaces) takes the default.
package config
