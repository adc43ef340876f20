package admin

import "github.com/redrive/redrive/lambda/config"

// The variables the admin function reads.
const (
	// EnvTable names the breaker table.
	EnvTable = "TABLE_NAME"
	// EnvParkingLotURL and EnvDLQURL are the queues the replay command
	// reads from and sends to; unset, it is unavailable.
	EnvParkingLotURL = "PARKING_LOT_URL"
	EnvDLQURL        = "DLQ_URL"
	// EnvReplayShortPoll, "true", has the replay command receive without
	// a long poll: only for an emulator on a virtual clock (redrive's
	// local stack), where a long poll waits for time that passes only
	// once the call returns.
	EnvReplayShortPoll = "REPLAY_SHORT_POLL"
)

// Config is the admin function's settings.
type Config struct {
	// Table is TABLE_NAME, the DynamoDB table of breaker rows. Required.
	Table string
	// ParkingLotURL and DLQURL are PARKING_LOT_URL and DLQ_URL: the
	// replay command needs both (PARKING_LOT_URL alone is the starter's
	// and park's, in an environment the functions share).
	ParkingLotURL, DLQURL string
	// ReplayShortPoll is REPLAY_SHORT_POLL.
	ReplayShortPoll bool
}

// ConfigFromEnv reads a Config through getenv; the error names every bad
// variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	env := config.From(getenv)
	c := Config{Table: env.Required(EnvTable), ParkingLotURL: env.Value(EnvParkingLotURL), DLQURL: env.Value(EnvDLQURL)}
	switch short := env.Value(EnvReplayShortPoll); short {
	case "", "false":
	case "true":
		c.ReplayShortPoll = true
	default:
		env.Fail(EnvReplayShortPoll, "want true or false, not "+short)
	}
	return c, env.Err()
}

// Replays reports whether the settings allow the replay command.
func (c Config) Replays() bool { return c.ParkingLotURL != "" && c.DLQURL != "" }
