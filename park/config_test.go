package park_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/park"
)

func TestConfigFromEnv(t *testing.T) {
	const url = "https://sqs.us-east-1.amazonaws.com/123456789012/orders-parking-lot"
	tests := []struct {
		name    string
		vars    map[string]string
		want    park.LotConfig
		invalid []string // variables named in the error
	}{
		{"defaults", map[string]string{"PARKING_LOT_URL": url}, park.LotConfig{QueueURL: url, MaxMessageSize: 1 << 20, Retention: 14 * 24 * time.Hour}, nil},
		{"the pre-2025 limit", map[string]string{"PARKING_LOT_URL": url, "PARKING_LOT_MAX_MESSAGE_SIZE": "262144"}, park.LotConfig{QueueURL: url, MaxMessageSize: 262144, Retention: park.DefaultRetention}, nil},
		{"a shorter retention", map[string]string{"PARKING_LOT_URL": url, "PARKING_LOT_RETENTION": "96h"}, park.LotConfig{QueueURL: url, MaxMessageSize: 1 << 20, Retention: 4 * 24 * time.Hour}, nil},
		{"missing URL", nil, park.LotConfig{}, []string{"PARKING_LOT_URL"}},
		{"not a URL", map[string]string{"PARKING_LOT_URL": "orders-parking-lot"}, park.LotConfig{}, []string{"PARKING_LOT_URL"}},
		{"a URL without a queue", map[string]string{"PARKING_LOT_URL": "https://sqs.us-east-1.amazonaws.com/"}, park.LotConfig{}, []string{"PARKING_LOT_URL"}},
		{"size not a number", map[string]string{"PARKING_LOT_URL": url, "PARKING_LOT_MAX_MESSAGE_SIZE": "1MiB"}, park.LotConfig{}, []string{"PARKING_LOT_MAX_MESSAGE_SIZE"}},
		{"size over SQS's", map[string]string{"PARKING_LOT_URL": url, "PARKING_LOT_MAX_MESSAGE_SIZE": "2097152"}, park.LotConfig{}, []string{"PARKING_LOT_MAX_MESSAGE_SIZE"}},
		{"retention not a duration", map[string]string{"PARKING_LOT_URL": url, "PARKING_LOT_RETENTION": "14d"}, park.LotConfig{}, []string{"PARKING_LOT_RETENTION"}},
		{"retention over SQS's", map[string]string{"PARKING_LOT_URL": url, "PARKING_LOT_RETENTION": "337h"}, park.LotConfig{}, []string{"PARKING_LOT_RETENTION"}},
		{"retention under SQS's", map[string]string{"PARKING_LOT_URL": url, "PARKING_LOT_RETENTION": "30s"}, park.LotConfig{}, []string{"PARKING_LOT_RETENTION"}},
		{"both bad", map[string]string{"PARKING_LOT_MAX_MESSAGE_SIZE": "10"}, park.LotConfig{}, []string{"PARKING_LOT_URL", "PARKING_LOT_MAX_MESSAGE_SIZE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := park.ConfigFromEnv(func(name string) string { return tt.vars[name] })
			if tt.invalid == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, c.Lot)
				assert.NoError(t, c.Validate())
				return
			}
			require.ErrorIs(t, err, config.ErrInvalid)
			for _, name := range tt.invalid {
				assert.Contains(t, err.Error(), "config: "+name)
			}
			assert.Len(t, unjoin(err), len(tt.invalid), "one error per bad variable: %v", err)
		})
	}
}

func TestConfigFromEnvReadsTheTable(t *testing.T) {
	vars := map[string]string{"PARKING_LOT_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/lot"}
	c, err := park.ConfigFromEnv(func(name string) string { return vars[name] })
	require.NoError(t, err)
	assert.Empty(t, c.Table, "optional: without it, nothing is indexed")
	vars["TABLE_NAME"] = "redrive"
	c, err = park.ConfigFromEnv(func(name string) string { return vars[name] })
	require.NoError(t, err)
	assert.Equal(t, "redrive", c.Table)
}

func TestConfigFromEnvReadsFIFOOnPark(t *testing.T) {
	vars := map[string]string{"PARKING_LOT_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/lot.fifo"}
	get := func(name string) string { return vars[name] }
	c, err := park.ConfigFromEnv(get)
	require.NoError(t, err)
	assert.Equal(t, park.FIFOContinue, c.FIFOOnPark, "the default")

	vars["FIFO_ON_PARK"] = "hold"
	_, err = park.ConfigFromEnv(get)
	assert.ErrorContains(t, err, "config: FIFO_ON_PARK=\"hold\": hold needs TABLE_NAME")
	vars["TABLE_NAME"] = "redrive"
	c, err = park.ConfigFromEnv(get)
	require.NoError(t, err)
	assert.Equal(t, park.FIFOHold, c.FIFOOnPark)
	assert.NoError(t, c.Validate())

	vars["FIFO_ON_PARK"] = "wait"
	_, err = park.ConfigFromEnv(get)
	assert.ErrorContains(t, err, `config: FIFO_ON_PARK="wait": want "continue" or "hold"`)
	c.FIFOOnPark = "wait"
	assert.ErrorContains(t, c.Validate(), "FIFO_ON_PARK")
}

func TestLotConfigValidate(t *testing.T) {
	err := park.LotConfig{QueueURL: "ftp://example.com/q", MaxMessageSize: 100, Retention: 15 * 24 * time.Hour}.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PARKING_LOT_URL")
	assert.Contains(t, err.Error(), "PARKING_LOT_MAX_MESSAGE_SIZE")
	assert.Contains(t, err.Error(), "PARKING_LOT_RETENTION")
	assert.NoError(t, park.LotConfig{QueueURL: "https://sqs.us-east-1.amazonaws.com/123456789012/lot", MaxMessageSize: 1024}.Validate(),
		"a zero retention means the default")
}

// unjoin splits an errors.Join result.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
