// Package s3local is the embedded S3 of the local stack: gofakes3 on an
// in-memory backend, for the claim-check bucket (package claimcheck), so
// that a body too large for a document travels through S3 locally as in
// AWS.
package s3local

import (
	"context"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// New returns the S3 API's HTTP handler on a fresh in-memory backend.
func New() http.Handler {
	return gofakes3.New(s3mem.New()).Server()
}

// Client returns an S3 client of the server at url, path-style (the
// bucket in the path, as a local endpoint needs), through httpClient. It
// sends checksums only where S3 requires them: gofakes3 does not read the
// aws-chunked bodies that carry the SDK's default trailing checksums.
func Client(url string, httpClient aws.HTTPClient, region string, creds aws.CredentialsProvider) *s3.Client {
	return s3.New(s3.Options{
		Region: region, BaseEndpoint: aws.String(url), Credentials: creds,
		HTTPClient: httpClient, UsePathStyle: true, Retryer: aws.NopRetryer{},
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// CreateBucket makes bucket on c.
func CreateBucket(ctx context.Context, c *s3.Client, bucket string) error {
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("s3local: create bucket %s: %w", bucket, err)
	}
	return nil
}
