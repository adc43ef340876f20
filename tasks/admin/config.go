package admin

import "github.com/redrive/redrive/tasks/config"

// EnvTable names the variable holding the breaker table's name.
const EnvTable = "TABLE_NAME"

// Config is the admin function's settings.
type Config struct {
	// Table is TABLE_NAME, the DynamoDB table of breaker rows. Required.
	Table string
}

// ConfigFromEnv reads a Config through getenv; the error names every bad
// variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	env := config.From(getenv)
	c := Config{Table: env.Required(EnvTable)}
	return c, env.Err()
}
