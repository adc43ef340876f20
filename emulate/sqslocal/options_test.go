package sqslocal_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
)

func TestNewServerRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts sqslocal.Options
		want string
	}{
		{"short account", sqslocal.Options{Account: "1234"}, `Account "1234"`},
		{"bad region", sqslocal.Options{Region: "Mars"}, `Region "Mars"`},
		{"tiny message size", sqslocal.Options{MaxMessageSize: 100}, "MaxMessageSize 100"},
		{"huge message size", sqslocal.Options{MaxMessageSize: 1 << 30}, "MaxMessageSize 1073741824"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := sqslocal.NewServer(tt.opts)
			require.Error(t, err)
			assert.Nil(t, srv)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "sqslocal: options:")
		})
	}
}
