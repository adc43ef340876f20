package emulator_test

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/cmd/redrive/emulator"
	"github.com/redrive/redrive/internal/loopback"
)

func TestStartReportsBadFunctionSettingsAndReleasesItsPorts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	env := map[string]string{"BREAKER_WINDOW_SIZE": "100", "MAX_ATTEMPTS": "lots", "STATE_MACHINE_ARN": "ignored"}
	_, err = emulator.Start(t.Context(), emulator.Options{LambdaAddr: addr, Getenv: func(k string) string { return env[k] }})
	require.Error(t, err)
	assert.ErrorContains(t, err, "BREAKER_WINDOW_SIZE")
	assert.ErrorContains(t, err, `MAX_ATTEMPTS="lots"`)
	assert.NotContains(t, err.Error(), "STATE_MACHINE_ARN", "the wiring variables are the emulator's")

	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err, "the failed start closed its Lambda server")
	require.NoError(t, ln.Close())
}

func TestStartRefusesABadNameSuffix(t *testing.T) {
	_, err := emulator.Start(t.Context(), emulator.Options{NameSuffix: "a b"})
	assert.ErrorContains(t, err, `NameSuffix "a b"`)
}

func TestExternalDynamoDBGetsItsOwnTableDroppedOnClose(t *testing.T) {
	host, err := emulator.Start(t.Context(), emulator.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, host.Close()) })

	e, err := emulator.Start(t.Context(), emulator.Options{DynamoDBEndpoint: host.DynamoDBURL})
	require.NoError(t, err)
	assert.Equal(t, host.DynamoDBURL, e.DynamoDBURL)
	assert.True(t, strings.HasPrefix(e.Table, emulator.TableName+"-"), "a unique table on a shared endpoint: %s", e.Table)

	ddb := dynamodb.New(dynamodb.Options{HTTPClient: loopback.NewHTTPClient(), Region: emulator.Region, BaseEndpoint: aws.String(host.DynamoDBURL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	exists := func(table string) bool {
		_, err := ddb.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if _, missing := errors.AsType[*ddbtypes.ResourceNotFoundException](err); missing {
			return false
		}
		require.NoError(t, err)
		return true
	}
	assert.True(t, exists(e.Table))
	require.NoError(t, e.Close())
	assert.False(t, exists(e.Table), "dropped on close")
	assert.True(t, exists(emulator.TableName), "the host's own table stays")
}
