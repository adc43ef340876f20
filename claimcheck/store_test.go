package claimcheck_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/emulate/s3local/s3test"
	"github.com/redrive/redrive/message"
)

// doc is a document with body.
func doc(body string) message.Document {
	return message.Document{Message: message.Message{ID: "m-1", Body: body}, OriginID: "m-1", Attempt: 1,
		BreakerKey: "orders", ReceivedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// mebibyte is a 1 MiB body, every byte position telling.
func mebibyte() string {
	var b strings.Builder
	for b.Len() < 1<<20 {
		b.WriteString("0123456789abcdef\u00e9\x00")
	}
	return b.String()[:1<<20]
}

func TestSmallBodiesStayInTheDocument(t *testing.T) {
	s := &claimcheck.Store{S3: s3test.Bucket(t, "bodies"), Bucket: "bodies"}
	d := doc(strings.Repeat("x", claimcheck.DefaultThreshold))
	moved, err := s.Check(t.Context(), &d)
	require.NoError(t, err)
	assert.False(t, moved)
	assert.Nil(t, d.BodyRef)
	assert.Len(t, d.Message.Body, claimcheck.DefaultThreshold)
}

// TestAMebibyteBodyComesBackByteForByte: a body over the threshold leaves
// a reference the document validates with, and comes back as it was.
func TestAMebibyteBodyComesBackByteForByte(t *testing.T) {
	s := &claimcheck.Store{S3: s3test.Bucket(t, "bodies"), Bucket: "bodies"}
	body := mebibyte()
	d := doc(body)
	moved, err := s.Check(t.Context(), &d)
	require.NoError(t, err)
	require.True(t, moved)
	require.NotNil(t, d.BodyRef)
	assert.Empty(t, d.Message.Body)
	assert.Equal(t, 1<<20, d.BodyRef.Size)
	require.NoError(t, d.Validate())
	input, err := d.Input()
	require.NoError(t, err)
	assert.Less(t, len(input), 2<<10, "the document carries the reference, not the body")

	again, err := s.Check(t.Context(), &d)
	require.NoError(t, err)
	assert.False(t, again, "a document with a reference is not checked twice")

	full, err := s.Redeem(t.Context(), d)
	require.NoError(t, err)
	assert.Nil(t, full.BodyRef)
	assert.Equal(t, sha256.Sum256([]byte(body)), sha256.Sum256([]byte(full.Message.Body)), "byte for byte")
}

func TestACorruptBodyIsRefused(t *testing.T) {
	c := s3test.Bucket(t, "bodies")
	s := &claimcheck.Store{S3: c, Bucket: "bodies", Threshold: 10}
	d := doc(strings.Repeat("y", 100))
	_, err := s.Check(t.Context(), &d)
	require.NoError(t, err)
	_, err = c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("bodies"), Key: aws.String(d.BodyRef.Key),
		Body: strings.NewReader(strings.Repeat("z", 100)), ContentLength: aws.Int64(100)})
	require.NoError(t, err)
	_, err = s.Redeem(t.Context(), d)
	assert.ErrorIs(t, err, claimcheck.ErrCorrupt)
}

func TestAMissingBucketIsAnError(t *testing.T) {
	s := &claimcheck.Store{S3: s3test.Bucket(t, "bodies"), Bucket: "no-such-bucket", Threshold: 10}
	d := doc(strings.Repeat("y", 100))
	moved, err := s.Check(t.Context(), &d)
	assert.Error(t, err)
	assert.False(t, moved)
	assert.Len(t, d.Message.Body, 100, "the body stays in the document when it could not be kept")
	assert.Nil(t, d.BodyRef)
}

func TestRedeemWithoutAReferenceIsTheDocument(t *testing.T) {
	s := &claimcheck.Store{S3: failing{}, Bucket: "bodies"}
	d := doc("small")
	got, err := s.Redeem(context.Background(), d)
	require.NoError(t, err)
	assert.Equal(t, d, got)
}

// failing is an S3 that fails every call.
type failing struct{}

func (failing) PutObject(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	return nil, errors.New("s3 down")
}

func (failing) GetObject(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	return nil, errors.New("s3 down")
}

func TestABodyNoLongerInTheBucketIsLost(t *testing.T) {
	s := &claimcheck.Store{S3: s3test.Bucket(t, "bodies"), Bucket: "bodies"}
	d := doc("")
	d.BodyRef = &message.BodyRef{Bucket: "bodies", Key: "bodies/expired", Size: 5, SHA256: strings.Repeat("a", 64)}
	_, err := s.Redeem(t.Context(), d)
	assert.ErrorIs(t, err, claimcheck.ErrLost)
	assert.True(t, claimcheck.Gone(err))
	assert.False(t, claimcheck.Gone(errors.New("s3: 503")), "an S3 that fails for now is not a lost body")
}

// A store for the room keeps at most RoomThreshold of body in a document,
// whatever larger threshold its own store has, and brings it back the
// same way.
func TestForRoomKeepsLessInTheDocument(t *testing.T) {
	s := &claimcheck.Store{S3: s3test.Bucket(t, "bodies"), Bucket: "bodies"}
	body := strings.Repeat("y", claimcheck.RoomThreshold+1)
	d := doc(body)
	moved, err := s.Check(t.Context(), &d)
	require.NoError(t, err)
	assert.False(t, moved, "under the store's own threshold")

	moved, err = s.ForRoom().Check(t.Context(), &d)
	require.NoError(t, err)
	assert.True(t, moved, "over the room's")
	assert.Empty(t, d.Message.Body)
	back, err := s.Redeem(t.Context(), d)
	require.NoError(t, err)
	assert.Equal(t, body, back.Message.Body)

	small := &claimcheck.Store{S3: s.S3, Bucket: "bodies", Threshold: 1 << 10}
	assert.Equal(t, 1<<10, small.ForRoom().Threshold, "a smaller threshold stays")
}
