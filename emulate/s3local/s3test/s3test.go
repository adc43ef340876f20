// Package s3test starts the embedded S3 (s3local) for a test.
package s3test

import (
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/s3local"
)

// Bucket starts an embedded S3 for tb's length, with bucket made, and
// returns its client.
func Bucket(tb testing.TB, bucket string) *s3.Client {
	tb.Helper()
	srv := httptest.NewServer(s3local.New())
	tb.Cleanup(srv.Close)
	c := s3local.Client(srv.URL, srv.Client(), "us-east-1", aws.AnonymousCredentials{})
	require.NoError(tb, s3local.CreateBucket(tb.Context(), c, bucket))
	return c
}
