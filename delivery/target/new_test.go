package target_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/redrive/redrive/delivery/target"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNew(t *testing.T) {
	lambdaCfg := target.Config{Kind: target.KindLambda, Function: "consumer"}
	sqsCfg := target.Config{Kind: target.KindSQS, QueueURL: "https://sqs.us-east-1.amazonaws.com/123456789012/orders"}
	tests := []struct {
		name    string
		cfg     target.Config
		clients target.Clients
		wantErr string
	}{
		{name: "lambda", cfg: lambdaCfg, clients: target.Clients{Lambda: lambda.New(lambda.Options{})}},
		{name: "sqs", cfg: sqsCfg, clients: target.Clients{SQS: sqs.New(sqs.Options{})}},
		{name: "lambda without its client", cfg: lambdaCfg, clients: target.Clients{SQS: sqs.New(sqs.Options{})}, wantErr: "target: TARGET_KIND=lambda needs a Lambda client"},
		{name: "sqs without its client", cfg: sqsCfg, clients: target.Clients{Lambda: lambda.New(lambda.Options{})}, wantErr: "target: TARGET_KIND=sqs needs an SQS client"},
		{name: "invalid config", cfg: target.Config{Kind: target.KindSQS}, clients: target.Clients{SQS: sqs.New(sqs.Options{})}, wantErr: "TARGET_QUEUE_URL: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := target.New(tt.cfg, tt.clients)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.NotNil(t, got)
		})
	}
}
