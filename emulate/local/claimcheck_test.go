package local_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/lambda/typedhandler"
	"github.com/redrive/redrive/message"
)

// largeBody is a body of n bytes of valid UTF-8 (multi-byte characters
// among them, as SQS allows), whose every position tells.
func largeBody(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("{\"order\":42,\"note\":\"\u00e9t\u00e9\"}\n")
	}
	body := b.String()[:n]
	for !utf8.ValidString(body) {
		body = body[:len(body)-1]
	}
	return body + strings.Repeat("x", n-len(body))
}

// consumeBodies has s's consumer keep the bodies of the records it is
// called with, its first `failing` calls failing with a transient error,
// and returns what it kept so far.
func consumeBodies(t *testing.T, s *local.Stack, failing int) func() []string {
	var mu sync.Mutex
	var got []string
	calls := 0
	require.NoError(t, s.Registry.Register(local.FunctionConsumer, typedhandler.New(
		func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range ev.Records {
				got = append(got, r.Body)
			}
			if calls++; calls <= failing {
				return events.SQSEventResponse{}, errors.New("not yet")
			}
			return events.SQSEventResponse{}, nil
		})))
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// TestAMebibyteBodyReachesTheConsumerByteForByte: a body of SQS's largest
// size does not fit an execution input or a table item; it travels by
// claim check through the embedded S3 and reaches the consumer, through
// the Lambda Invoke API's wire format, as it was sent.
func TestAMebibyteBodyReachesTheConsumerByteForByte(t *testing.T) {
	s := start(t, local.Options{InProcess: true})
	bodies := consumeBodies(t, s, 0)
	body := largeBody(1 << 20)
	_, err := s.SendToDLQ(t.Context(), message.Message{Body: body})
	require.NoError(t, err)
	run(t, s)

	got := bodies()
	require.Len(t, got, 1, "delivered once")
	assert.Equal(t, sha256.Sum256([]byte(body)), sha256.Sum256([]byte(got[0])), "byte for byte")
	objects, err := s.S3.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(local.BodyBucket)})
	require.NoError(t, err)
	assert.Len(t, objects.Contents, 1, "the body went by claim check")
	parked, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	assert.Empty(t, parked, "nothing parked as oversize")
}

// TestALargePoisonBodyIsParkedAsItCame: the parking lot gets the original
// body back from the claim check, for a person to read and replay.
func TestALargePoisonBodyIsParkedAsItCame(t *testing.T) {
	s := start(t, local.Options{InProcess: true})
	require.NoError(t, s.Registry.Register(local.FunctionConsumer, typedhandler.New(
		func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{}, &PoisonMessage{}
		})))
	body := largeBody(600 << 10)
	_, err := s.SendToDLQ(t.Context(), message.Message{Body: body})
	require.NoError(t, err)
	run(t, s)

	parked, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	require.Len(t, parked, 1)
	assert.Equal(t, sha256.Sum256([]byte(body)), sha256.Sum256([]byte(parked[0].Message.Body)), "the original body, byte for byte")
	assert.True(t, strings.HasPrefix(parked[0].Record.Reason, "poison:"), parked[0].Record.Reason)
}

// PoisonMessage is the error type the stack's consumer error types call
// poison (Options.PoisonErrorTypes' default).
type PoisonMessage struct{}

func (*PoisonMessage) Error() string { return "the consumer cannot process this message" }

// TestABodyThatWaitsInTheRoomGoesByClaimCheck: a 10 KiB body fits its
// document, until the message waits in the room (its first try failed):
// the Queue task puts the body in S3, and the release's execution brings
// it back to the consumer byte for byte.
func TestABodyThatWaitsInTheRoomGoesByClaimCheck(t *testing.T) {
	s := start(t, local.Options{InProcess: true})
	bodies := consumeBodies(t, s, 1)
	body := largeBody(10 << 10)
	_, err := s.SendToDLQ(t.Context(), message.Message{Body: body})
	require.NoError(t, err)
	run(t, s)

	got := bodies()
	require.Len(t, got, 2, "failed once, then delivered")
	for i, g := range got {
		assert.Equal(t, sha256.Sum256([]byte(body)), sha256.Sum256([]byte(g)), "try %d byte for byte", i+1)
	}
	objects, err := s.S3.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(local.BodyBucket)})
	require.NoError(t, err)
	assert.Len(t, objects.Contents, 1, "the waiting body went by claim check")
	assert.Equal(t, int64(1), s.Stats().S3Puts)
}
