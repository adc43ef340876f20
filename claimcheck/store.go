package claimcheck

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/redrive/redrive/message"
)

// EnvBucket is the variable naming the bucket (BODY_BUCKET); unset, no
// body is claim-checked.
const EnvBucket = "BODY_BUCKET"

// DefaultThreshold is the largest body a document carries itself: far
// below Step Functions' 256 KiB input (less the starter's headroom) and a
// table item's 400 KB, so a document with its history always fits both.
const DefaultThreshold = 64 << 10

// RoomThreshold is the largest body a document waiting in the room
// carries itself: a pass through the room writes the document's item
// three times (its entry, the release's claim, the delete), each a
// DynamoDB write unit per KB begun, so from about 3 KiB an S3 PUT and a
// GET per try cost less than keeping the body in the item.
const RoomThreshold = 4 << 10

// API is the part of the S3 client the store calls; *s3.Client satisfies
// it.
type API interface {
	PutObject(ctx context.Context, params *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, params *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
}

var _ API = (*s3.Client)(nil)

// ErrCorrupt matches a body that came back from S3 other than it was put,
// and ErrLost one S3 no longer has (NoSuchKey: deleted, or expired by the
// bucket's lifecycle): either way no retry brings it back.
var (
	ErrCorrupt = errors.New("claimcheck: body does not match its reference")
	ErrLost    = errors.New("claimcheck: body is not in its bucket")
)

// Gone reports an error of Redeem that no retry mends: the body is lost or
// corrupt.
func Gone(err error) bool { return errors.Is(err, ErrCorrupt) || errors.Is(err, ErrLost) }

// Store keeps large bodies in Bucket. Every field but Threshold is
// required.
type Store struct {
	// S3 is the client.
	S3 API
	// Bucket is the bucket the stack creates (encrypted, with a lifecycle
	// expiry beyond any wait).
	Bucket string
	// Threshold is the largest body a document carries itself; 0 means
	// DefaultThreshold.
	Threshold int
}

// Check moves doc's body to S3 when it is larger than the threshold,
// leaving a reference in its place, and reports whether it did. The
// object's key is the message's origin id, attempt and the body's hash,
// so a retried Check writes the same object again.
func (s *Store) Check(ctx context.Context, doc *message.Document) (bool, error) {
	body := doc.Message.Body
	if doc.BodyRef != nil || len(body) <= s.threshold() {
		return false, nil
	}
	sum := sha256.Sum256([]byte(body))
	ref := &message.BodyRef{
		Bucket: s.Bucket,
		Key:    "bodies/" + message.ExecutionName(doc.OriginID, doc.Attempt, 0) + "/" + hex.EncodeToString(sum[:]),
		Size:   len(body),
		SHA256: hex.EncodeToString(sum[:]),
	}
	if _, err := s.S3.PutObject(ctx, &s3.PutObjectInput{
		Bucket:               aws.String(ref.Bucket),
		Key:                  aws.String(ref.Key),
		Body:                 bytes.NewReader([]byte(body)),
		ContentLength:        aws.Int64(int64(len(body))),
		ServerSideEncryption: types.ServerSideEncryptionAes256,
	}); err != nil {
		return false, fmt.Errorf("claimcheck: put the %d-byte body of %s in s3://%s/%s: %w", len(body), doc.OriginID, ref.Bucket, ref.Key, err)
	}
	doc.Message.Body, doc.BodyRef = "", ref
	return true, nil
}

// Redeem returns doc with its body back from S3 when it carries a
// reference (and as it is otherwise). A body whose size or SHA-256
// differs from the reference is ErrCorrupt.
func (s *Store) Redeem(ctx context.Context, doc message.Document) (message.Document, error) {
	ref := doc.BodyRef
	if ref == nil {
		return doc, nil
	}
	out, err := s.S3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(ref.Bucket), Key: aws.String(ref.Key)})
	if _, missing := errors.AsType[*types.NoSuchKey](err); missing {
		return doc, fmt.Errorf("%w: s3://%s/%s (of %s)", ErrLost, ref.Bucket, ref.Key, doc.OriginID)
	}
	if err != nil {
		return doc, fmt.Errorf("claimcheck: get the body of %s from s3://%s/%s: %w", doc.OriginID, ref.Bucket, ref.Key, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(io.LimitReader(out.Body, int64(ref.Size)+1))
	if err != nil {
		return doc, fmt.Errorf("claimcheck: read the body of %s from s3://%s/%s: %w", doc.OriginID, ref.Bucket, ref.Key, err)
	}
	sum := sha256.Sum256(body)
	if len(body) != ref.Size || hex.EncodeToString(sum[:]) != ref.SHA256 {
		return doc, fmt.Errorf("%w: s3://%s/%s has %s bytes, want %d with SHA-256 %s",
			ErrCorrupt, ref.Bucket, ref.Key, strconv.Itoa(len(body)), ref.Size, ref.SHA256)
	}
	doc.Message.Body, doc.BodyRef = string(body), nil
	return doc, nil
}

// ForRoom is s for documents that enter the waiting room: its threshold
// at most RoomThreshold.
func (s *Store) ForRoom() *Store {
	c := *s
	c.Threshold = min(s.threshold(), RoomThreshold)
	return &c
}

// threshold is Threshold or its default.
func (s *Store) threshold() int {
	if s.Threshold > 0 {
		return s.Threshold
	}
	return DefaultThreshold
}
