package admin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/lambda/config"
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    admin.Config
		wantErr string
	}{
		{"table set", map[string]string{"TABLE_NAME": "redrive"}, admin.Config{Table: "redrive"}, ""},
		{"table missing", map[string]string{}, admin.Config{}, "config: TABLE_NAME: required but not set"},
		{"table blank", map[string]string{"TABLE_NAME": "  "}, admin.Config{}, "config: TABLE_NAME: required but not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := admin.ConfigFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				assert.ErrorIs(t, err, config.ErrInvalid)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
