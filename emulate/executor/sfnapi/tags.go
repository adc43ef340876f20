package sfnapi

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/redrive/redrive/emulate/executor"
)

// AWS's tagging restrictions, which Step Functions' quotas refer to: tags
// per resource, and the lengths of a key and a value in characters.
const (
	maxTags           = 50
	maxTagKeyLength   = 128
	maxTagValueLength = 256
)

// tagPattern is what a tag key or value may contain: Unicode letters,
// digits, white space and _ . : / = + - @.
var tagPattern = regexp.MustCompile(`^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$`)

// tag is the API's Tag.
type tag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type tagResourceInput struct {
	ResourceArn string `json:"resourceArn"`
	Tags        []tag  `json:"tags"`
}

type untagResourceInput struct {
	ResourceArn string   `json:"resourceArn"`
	TagKeys     []string `json:"tagKeys"`
}

type listTagsForResourceInput struct {
	ResourceArn string `json:"resourceArn"`
}

type listTagsForResourceOutput struct {
	Tags []tag `json:"tags"`
}

// tagsOutput is the empty response of TagResource and UntagResource.
type tagsOutput struct{}

func (s *server) tagResource(ctx context.Context, in *tagResourceInput) (tagsOutput, error) {
	if in.Tags == nil {
		return tagsOutput{}, validation("tags", "Member must not be null")
	}
	if err := checkTags(in.Tags); err != nil {
		return tagsOutput{}, err
	}
	if err := s.checkResource(ctx, in.ResourceArn); err != nil {
		return tagsOutput{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tags, err := addTags(s.tags[in.ResourceArn], in.Tags, in.ResourceArn)
	if err != nil {
		return tagsOutput{}, err
	}
	s.tags[in.ResourceArn] = tags
	return tagsOutput{}, nil
}

func (s *server) untagResource(ctx context.Context, in *untagResourceInput) (tagsOutput, error) {
	if in.TagKeys == nil {
		return tagsOutput{}, validation("tagKeys", "Member must not be null")
	}
	if err := s.checkResource(ctx, in.ResourceArn); err != nil {
		return tagsOutput{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tags[in.ResourceArn] = slices.DeleteFunc(s.tags[in.ResourceArn], func(t tag) bool {
		return slices.Contains(in.TagKeys, t.Key)
	})
	return tagsOutput{}, nil
}

func (s *server) listTagsForResource(ctx context.Context, in *listTagsForResourceInput) (listTagsForResourceOutput, error) {
	if err := s.checkResource(ctx, in.ResourceArn); err != nil {
		return listTagsForResourceOutput{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return listTagsForResourceOutput{Tags: append([]tag{}, s.tags[in.ResourceArn]...)}, nil
}

// checkResource checks that arn names a state machine of the executor,
// the only resources it has: a malformed ARN is InvalidArn, an unknown one
// ResourceNotFound.
func (s *server) checkResource(ctx context.Context, arn string) error {
	if err := required("resourceArn", arn); err != nil {
		return err
	}
	_, err := s.e.DescribeStateMachine(ctx, arn)
	if errors.Is(err, executor.ErrStateMachineDoesNotExist) {
		return &apiError{code: "ResourceNotFound", message: fmt.Sprintf("Resource not found: '%s'", arn), resourceName: arn}
	}
	return err
}

// addTags returns tags with add (checked by checkTags) applied: a key
// already there takes its new value in place, a new key is appended. More
// than maxTags in all is TooManyTags for resource (an ARN, or "" for a
// state machine not created yet).
func addTags(tags, add []tag, resource string) ([]tag, error) {
	out := slices.Clone(tags)
	for _, t := range add {
		if i := slices.IndexFunc(out, func(o tag) bool { return o.Key == t.Key }); i >= 0 {
			out[i].Value = t.Value
		} else {
			out = append(out, t)
		}
	}
	if len(out) > maxTags {
		return nil, &apiError{code: "TooManyTags", resourceName: resource,
			message: fmt.Sprintf("Too many tags: a resource may have at most %d, this one would have %d", maxTags, len(out))}
	}
	return out, nil
}

// checkTags checks each tag against the Tag shape's constraints; the
// member names count from 1, as AWS's validation messages do.
func checkTags(tags []tag) error {
	for i, t := range tags {
		member := fmt.Sprintf("tags.%d.member.", i+1)
		if t.Key == "" {
			return validation(member+"key", "Member must have length greater than or equal to 1")
		}
		for _, m := range []struct {
			name, value string
			limit       int
		}{{"key", t.Key, maxTagKeyLength}, {"value", t.Value, maxTagValueLength}} {
			if err := atMost(member+m.name, utf8.RuneCountInString(m.value), m.limit); err != nil {
				return err
			}
			if !tagPattern.MatchString(m.value) {
				return validation(member+m.name, "Member must satisfy regular expression pattern: "+tagPattern.String())
			}
		}
	}
	return nil
}
