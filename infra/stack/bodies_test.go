package stack

import (
	"context"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/message"
)

// TestBodyBucket: the claim check's bucket is encrypted with S3's own key
// (SSE-S3, AES256), blocks every kind of public access, keeps no
// versions, expires every object after BodyRetentionDays (45 in the
// existing fixture, the default 30 in the demo), and is retained, not
// emptied, when the stack is deleted.
func TestBodyBucket(t *testing.T) {
	days := map[string]int{existingName: 45, demoName: 30}
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			bucket := s.resources[s.id(t, "AWS::S3::Bucket", bodyBucketID)]
			p := bucket.Properties
			assert.JSONEq(t, `{"ServerSideEncryptionConfiguration":[{"ServerSideEncryptionByDefault":{"SSEAlgorithm":"AES256"}}]}`,
				render(p["BucketEncryption"]))
			assert.JSONEq(t, `{"BlockPublicAcls":true,"BlockPublicPolicy":true,"IgnorePublicAcls":true,"RestrictPublicBuckets":true}`,
				render(p["PublicAccessBlockConfiguration"]))
			assert.Nil(t, p["VersioningConfiguration"], "versioning off")
			assert.JSONEq(t, `{"Rules":[{"Id":"ExpireBodies","Status":"Enabled","ExpirationInDays":`+render(float64(days[fixture]))+`,
				"AbortIncompleteMultipartUpload":{"DaysAfterInitiation":1}}]}`, render(p["LifecycleConfiguration"]))
			assert.Nil(t, p["LoggingConfiguration"], "no access logs: the stack has no logs bucket (a cdk-nag suppression says so)")
			assert.Nil(t, p["BucketName"], "named by CloudFormation, so one account can hold one stack per DLQ")

			assert.Equal(t, "Retain", bucket.DeletionPolicy, "bodies are customer data: the bucket outlives the stack")
			assert.Equal(t, "Retain", bucket.UpdateReplacePolicy)
			assert.NotContains(t, render(p["Tags"]), "auto-delete-objects", "autoDeleteObjects is off")
			assert.Empty(t, s.ofType("Custom::S3AutoDeleteObjects"), "nothing empties the bucket")
		})
	}
}

// TestBodyBucketPolicy: the bucket policy grants nothing; it denies every
// request without TLS, on the bucket and on its objects.
func TestBodyBucketPolicy(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			bucket := s.id(t, "AWS::S3::Bucket", bodyBucketID)
			_, policy := s.only(t, "AWS::S3::BucketPolicy")
			assert.Equal(t, "{"+bucket+"}", render(policy.Properties["Bucket"]))
			list := statements(policy.Properties["PolicyDocument"])
			require.Len(t, list, 1, "the TLS-only statement alone: %s", render(policy.Properties["PolicyDocument"]))
			st := list[0]
			assert.Equal(t, "Deny", st["Effect"])
			assert.Equal(t, []string{"s3:*"}, renderAll(st["Action"]))
			assert.JSONEq(t, `{"AWS":"*"}`, render(st["Principal"]))
			assert.JSONEq(t, `{"Bool":{"aws:SecureTransport":"false"}}`, render(st["Condition"]))
			assert.ElementsMatch(t, []string{"{" + bucket + ".Arn}", "{" + bucket + ".Arn}/*"}, renderAll(st["Resource"]))
		})
	}
}

// TestBodyBucketGrants: of every statement in the template that names the
// bucket, the only ones that allow anything are the starter's PutObject
// and the attempt's and park's GetObject, each on bodies/* alone; the rest
// is the bucket policy's TLS-only Deny.
func TestBodyBucketGrants(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			bucket := s.id(t, "AWS::S3::Bucket", bodyBucketID)
			roles := map[string]string{}
			for _, id := range s.ofType("AWS::IAM::Role") {
				roles["{"+id+"}"] = strings.TrimSuffix(logicalIDHash.ReplaceAllString(id, "$1"), "Role")
			}
			var allows []string
			for id, r := range s.resources {
				for _, st := range allStatements(r.Properties) {
					if !strings.Contains(render(st["Resource"]), bucket) {
						continue
					}
					if st["Effect"] != "Allow" {
						assert.Equal(t, "AWS::S3::BucketPolicy", r.Type, "a Deny on the bucket elsewhere: %s", render(st))
						continue
					}
					require.Equal(t, "AWS::IAM::Policy", r.Type, "%s allows on the bucket: %s", id, render(st))
					assert.Nil(t, st["Condition"], render(st))
					for _, role := range renderAll(r.Properties["Roles"]) {
						for _, action := range renderAll(st["Action"]) {
							for _, res := range renderAll(st["Resource"]) {
								allows = append(allows, roles[role]+": "+action+" on "+res)
							}
						}
					}
				}
			}
			objects := "{" + bucket + ".Arn}/" + bodyKeyPrefix + "*"
			want := []string{
				"Attempt: s3:GetObject on " + objects,
				"Park: s3:GetObject on " + objects,
				"Starter: s3:PutObject on " + objects,
				"WaitingRoom: s3:PutObject on " + objects,
			}
			sort.Strings(allows)
			assert.Equal(t, want, allows)
		})
	}
}

// objects is an S3 client that keeps what is put and gives it back.
type objects struct {
	puts []*s3.PutObjectInput
	body map[string][]byte
}

func (o *objects) PutObject(_ context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	b, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	o.puts = append(o.puts, in)
	o.body[*in.Key] = b
	return &s3.PutObjectOutput{}, nil
}

func (o *objects) GetObject(_ context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	return &s3.GetObjectOutput{Body: io.NopCloser(strings.NewReader(string(o.body[*in.Key])))}, nil
}

// TestClaimCheckMatchesTheBucket runs the claim check's own code against
// the deployed bucket's name: what it puts is under the prefix the grants
// allow (so the starter may put it and the attempt and park may get it
// back), and each PUT asks for the encryption the bucket has by default.
func TestClaimCheckMatchesTheBucket(t *testing.T) {
	s := synth(t, demoName)
	bucket := s.resources[s.id(t, "AWS::S3::Bucket", bodyBucketID)].Properties
	byDefault := bucket["BucketEncryption"].(map[string]any)["ServerSideEncryptionConfiguration"].([]any)[0].(map[string]any)
	algorithm := byDefault["ServerSideEncryptionByDefault"].(map[string]any)["SSEAlgorithm"]

	api := &objects{body: map[string][]byte{}}
	store := &claimcheck.Store{S3: api, Bucket: "redrive-bodybucket-0123456789ab"}
	body := strings.Repeat("x", claimcheck.DefaultThreshold+1)
	doc := message.Document{Message: message.Message{ID: "m-1", Body: body}, OriginID: "m-1", Attempt: 1,
		BreakerKey: "orders", ReceivedAt: time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)}
	moved, err := store.Check(context.Background(), &doc)
	require.NoError(t, err)
	require.True(t, moved, "a body over the threshold is claim-checked")
	require.Len(t, api.puts, 1)
	put := api.puts[0]
	assert.True(t, strings.HasPrefix(*put.Key, bodyKeyPrefix), "key %q outside the granted %s*", *put.Key, bodyKeyPrefix)
	assert.False(t, slices.Contains(strings.Split(strings.TrimPrefix(*put.Key, bodyKeyPrefix), "/"), ".."), *put.Key)
	assert.Equal(t, algorithm, string(put.ServerSideEncryption), "the PUT asks for the bucket's own encryption")

	back, err := store.Redeem(context.Background(), doc)
	require.NoError(t, err)
	assert.Equal(t, body, back.Message.Body)
}
