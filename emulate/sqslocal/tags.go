package sqslocal

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Queue tag limits from the SQS quotas ("Queue tag"): keys of 1 to 128
// characters, values of up to 256, both of Unicode letters, digits,
// whitespace and _ . : / = + - @, and no key starting with the reserved
// aws: prefix.
const (
	maxTagKeyLen   = 128
	maxTagValueLen = 256
)

// tagPattern is the characters a tag key or value may hold.
var tagPattern = regexp.MustCompile(`^[\pL\pN\pZ\s_.:/=+\-@]*$`)

// checkTags validates tags against the quotas.
func checkTags(tags map[string]string) *apiError {
	for _, key := range slices.Sorted(maps.Keys(tags)) {
		value := tags[key]
		switch {
		case key == "" || utf8.RuneCountInString(key) > maxTagKeyLen || !tagPattern.MatchString(key):
			return invalidValue("Tags", key, "Tag keys must be 1 to 128 Unicode letters, digits, whitespace or _ . : / = + - @.")
		case strings.HasPrefix(strings.ToLower(key), "aws:"):
			return invalidValue("Tags", key, "Tag keys can't start with the reserved prefix aws:.")
		case utf8.RuneCountInString(value) > maxTagValueLen || !tagPattern.MatchString(value):
			return invalidValue("Tags", value, "Tag values must be up to 256 Unicode letters, digits, whitespace or _ . : / = + - @.")
		}
	}
	return nil
}

type tagQueueInput struct {
	QueueURL string `json:"QueueUrl"`
	Tags     map[string]string
}

// tagQueue adds tags to a queue, replacing those with the same keys.
func (s *Server) tagQueue(_ call, in *tagQueueInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, _ time.Time) (any, *apiError) {
		if len(in.Tags) == 0 {
			return nil, missing("Tags")
		}
		if err := checkTags(in.Tags); err != nil {
			return nil, err
		}
		if q.tags == nil {
			q.tags = map[string]string{}
		}
		maps.Copy(q.tags, in.Tags)
		return struct{}{}, nil
	})
}

type untagQueueInput struct {
	QueueURL string `json:"QueueUrl"`
	TagKeys  []string
}

// untagQueue removes the tags with the given keys; absent keys are
// ignored.
func (s *Server) untagQueue(_ call, in *untagQueueInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, _ time.Time) (any, *apiError) {
		if len(in.TagKeys) == 0 {
			return nil, missing("TagKeys")
		}
		for _, key := range in.TagKeys {
			delete(q.tags, key)
		}
		return struct{}{}, nil
	})
}

type listQueueTagsOutput struct {
	Tags map[string]string `json:",omitempty"`
}

// listQueueTags returns a queue's tags.
func (s *Server) listQueueTags(_ call, in *queueURLInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, _ time.Time) (any, *apiError) {
		return listQueueTagsOutput{maps.Clone(q.tags)}, nil
	})
}
