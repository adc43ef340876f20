package wire

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAWSClientsTries(t *testing.T) {
	c := clientsOf(aws.Config{Region: "us-east-1"})
	tries := func(t *testing.T, client any) int {
		t.Helper()
		switch c := client.(type) {
		case *dynamodb.Client:
			return c.Options().Retryer.MaxAttempts()
		case *sfn.Client:
			return c.Options().Retryer.MaxAttempts()
		case *sqs.Client:
			return c.Options().Retryer.MaxAttempts()
		case *lambda.Client:
			return c.Options().Retryer.MaxAttempts()
		}
		require.Failf(t, "not an SDK client", "%T", client)
		return 0
	}
	tests := []struct {
		name   string
		client any
		want   int
	}{
		{name: "DynamoDB keeps the standard retries", client: c.DynamoDB, want: 3},
		{name: "SFN keeps the standard retries", client: c.SFN, want: 3},
		{name: "the parking lot keeps the standard retries", client: c.ParkingLot, want: 3},
		{name: "the Lambda delivery makes one try", client: c.Delivery.Lambda, want: 1},
		{name: "the SQS delivery makes one try", client: c.Delivery.SQS, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tries(t, tt.client))
		})
	}
}

func TestAWSClientsFromTheEnvironment(t *testing.T) {
	t.Setenv("AWS_REGION", "eu-west-3")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	c, err := AWSClients(t.Context())
	require.NoError(t, err)
	ddb, ok := c.DynamoDB.(*dynamodb.Client)
	require.True(t, ok)
	assert.Equal(t, "eu-west-3", ddb.Options().Region)

	t.Setenv("AWS_PROFILE", "no-such-profile")
	_, err = AWSClients(t.Context())
	assert.ErrorContains(t, err, "wire: load AWS configuration")
}
