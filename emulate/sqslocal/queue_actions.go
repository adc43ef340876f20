package sqslocal

import (
	"encoding/base64"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// queueNameReuseDelay is how long after DeleteQueue a queue of the same
// name cannot be created, and purgeInterval how often PurgeQueue may run
// on one queue.
const (
	queueNameReuseDelay = 60 * time.Second
	purgeInterval       = 60 * time.Second
)

// maxListQueues is the most queue URLs one ListQueues call returns.
const maxListQueues = 1000

type createQueueInput struct {
	QueueName  string
	Attributes map[string]string
	Tags       map[string]string `json:"tags"`
}

type queueURLOutput struct {
	QueueURL string `json:"QueueUrl"`
}

// createQueue creates a queue with its tags, FIFO when the FifoQueue
// attribute says so, or returns the URL of an existing one when every
// given attribute has the value the queue already has (the tags of an
// existing queue are left as they are).
func (s *Server) createQueue(c call, in *createQueueInput) (any, *apiError) {
	fifo := fifoRequested(in.Attributes)
	if err := checkQueueName(in.QueueName, fifo); err != nil {
		return nil, err
	}
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	if q := s.queues[in.QueueName]; q != nil {
		want, err := s.applyQueueAttributes(q.cfg, in.Attributes, q.name)
		if err != nil {
			return nil, err
		}
		wantAttrs, haveAttrs := want.attributes(), q.cfg.attributes()
		for _, name := range slices.Sorted(maps.Keys(in.Attributes)) {
			if wantAttrs[name] != haveAttrs[name] {
				return nil, errQueueNameExists.errorf("A queue already exists with the same name and a different value for attribute %s", name)
			}
		}
		return queueURLOutput{s.queueURL(c.base, q.name)}, nil
	}
	if at, ok := s.deleted[in.QueueName]; ok && now.Before(at.Add(queueNameReuseDelay)) {
		return nil, errQueueDeletedRecently.errorf("You must wait 60 seconds after deleting a queue before you can create another with the same name.")
	}
	cfg, err := s.applyQueueAttributes(s.defaultQueueConfig(fifo), in.Attributes, in.QueueName)
	if err != nil {
		return nil, err
	}
	q := newQueue(in.QueueName, cfg, now)
	q.tags = maps.Clone(in.Tags)
	s.queues[in.QueueName] = q
	delete(s.deleted, in.QueueName)
	return queueURLOutput{s.queueURL(c.base, in.QueueName)}, nil
}

type getQueueURLInput struct {
	QueueName              string
	QueueOwnerAWSAccountID string `json:"QueueOwnerAWSAccountId"`
}

// getQueueURL returns the URL of a queue by name.
func (s *Server) getQueueURL(c call, in *getQueueURLInput) (any, *apiError) {
	if in.QueueName == "" {
		return nil, missing("QueueName")
	}
	if in.QueueOwnerAWSAccountID != "" && in.QueueOwnerAWSAccountID != s.opts.Account {
		return nil, noSuchQueue()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookup(in.QueueName, s.opts.Clock.Now())
	if err != nil {
		return nil, err
	}
	return queueURLOutput{s.queueURL(c.base, q.name)}, nil
}

type getQueueAttributesInput struct {
	QueueURL       string `json:"QueueUrl"`
	AttributeNames []string
}

type getQueueAttributesOutput struct {
	Attributes map[string]string `json:",omitempty"`
}

// getQueueAttributes reports the requested attributes ("All" for every
// one); attributes this server does not implement are never reported.
func (s *Server) getQueueAttributes(_ call, in *getQueueAttributesInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		all := q.cfg.attributes()
		d := q.depth(now)
		all["ApproximateNumberOfMessages"] = strconv.Itoa(d.Visible)
		all["ApproximateNumberOfMessagesNotVisible"] = strconv.Itoa(d.InFlight)
		all["ApproximateNumberOfMessagesDelayed"] = strconv.Itoa(d.Delayed)
		all["CreatedTimestamp"] = strconv.FormatInt(q.created.Unix(), 10)
		all["LastModifiedTimestamp"] = strconv.FormatInt(q.modified.Unix(), 10)
		all["QueueArn"] = s.queueARN(q.name)
		out := map[string]string{}
		for _, name := range in.AttributeNames {
			switch {
			case name == "All":
				maps.Copy(out, all)
			case all[name] != "":
				out[name] = all[name]
			case !s.knownQueueAttribute(name):
				return nil, errInvalidAttributeName.errorf("Unknown Attribute %s.", name)
			}
		}
		return getQueueAttributesOutput{out}, nil
	})
}

// knownQueueAttribute reports whether SQS defines the queue attribute.
func (s *Server) knownQueueAttribute(name string) bool {
	_, settable := s.intAttributes()[name]
	return settable || name == "RedrivePolicy" ||
		slices.Contains(readOnlyQueueAttributes, name) ||
		slices.Contains(fifoQueueAttributes, name) ||
		slices.Contains(unsupportedQueueAttributes, name)
}

type setQueueAttributesInput struct {
	QueueURL   string `json:"QueueUrl"`
	Attributes map[string]string
}

// setQueueAttributes changes a queue's attributes, all or none.
func (s *Server) setQueueAttributes(_ call, in *setQueueAttributesInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		if in.Attributes == nil {
			return nil, missing("Attributes")
		}
		cfg, err := s.applyQueueAttributes(q.cfg, in.Attributes, q.name)
		if err != nil {
			return nil, err
		}
		q.cfg, q.modified = cfg, now
		return struct{}{}, nil
	})
}

type listQueuesInput struct {
	QueueNamePrefix string
	MaxResults      *int
	NextToken       string
}

type listQueuesOutput struct {
	QueueURLs []string `json:"QueueUrls,omitempty"`
	NextToken string   `json:",omitempty"`
}

// listQueues lists queue URLs in name order, optionally by prefix and in
// pages of MaxResults.
func (s *Server) listQueues(c call, in *listQueuesInput) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for name := range s.queues {
		if strings.HasPrefix(name, in.QueueNamePrefix) {
			names = append(names, name)
		}
	}
	urls, next, err := s.page(c, names, in.MaxResults, in.NextToken)
	return listQueuesOutput{urls, next}, err
}

type listDeadLetterSourceQueuesInput struct {
	QueueURL   string `json:"QueueUrl"`
	MaxResults *int
	NextToken  string
}

type listDeadLetterSourceQueuesOutput struct {
	QueueURLs []string `json:"queueUrls"`
	NextToken string   `json:",omitempty"`
}

// listDeadLetterSourceQueues lists, in name order and in pages of
// MaxResults, the URLs of the queues whose redrive policy targets the
// given queue.
func (s *Server) listDeadLetterSourceQueues(c call, in *listDeadLetterSourceQueuesInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, _ time.Time) (any, *apiError) {
		urls, next, err := s.page(c, s.deadLetterSources(q), in.MaxResults, in.NextToken)
		if urls == nil {
			urls = []string{} // queueUrls is a required member
		}
		return listDeadLetterSourceQueuesOutput{urls, next}, err
	})
}

// deadLetterSources returns the names of the queues whose dead-letter queue
// is dlq. It runs under s.mu.
func (s *Server) deadLetterSources(dlq *queue) []string {
	var names []string
	for name, q := range s.queues {
		if s.deadLetterQueue(q) == dlq {
			names = append(names, name)
		}
	}
	return names
}

// page returns the URLs of one page of names, in name order: those after
// the name nextToken holds, at most maxResults, and the next page's token.
// ListQueues and ListDeadLetterSourceQueues page so; without maxResults a
// page holds up to 1000 and gets no token, as SQS does.
func (s *Server) page(c call, names []string, maxResults *int, nextToken string) ([]string, string, *apiError) {
	limit, err := optionalInt("MaxResults", maxResults, 1, maxListQueues, maxListQueues)
	if err != nil {
		return nil, "", err
	}
	after := ""
	if nextToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(nextToken)
		if err != nil || len(raw) == 0 {
			return nil, "", invalidValue("NextToken", nextToken, "Invalid NextToken value.")
		}
		after = string(raw)
	}
	slices.Sort(names)
	start, found := slices.BinarySearch(names, after)
	if found {
		start++
	}
	names = names[start:]
	next := ""
	if len(names) > limit {
		names = names[:limit]
		if maxResults != nil {
			next = base64.RawURLEncoding.EncodeToString([]byte(names[limit-1]))
		}
	}
	var urls []string
	for _, name := range names {
		urls = append(urls, s.queueURL(c.base, name))
	}
	return urls, next, nil
}

type queueURLInput struct {
	QueueURL string `json:"QueueUrl"`
}

// purgeQueue deletes every message; a queue may be purged once a minute.
func (s *Server) purgeQueue(_ call, in *queueURLInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		if !q.purgedAt.IsZero() && now.Before(q.purgedAt.Add(purgeInterval)) {
			return nil, errPurgeQueueInProgress.errorf("Only one PurgeQueue operation on %s is allowed every 60 seconds.", q.name)
		}
		q.messages, q.purgedAt = nil, now
		return struct{}{}, nil
	})
}

// deleteQueue deletes a queue and its messages and ends its long polls.
func (s *Server) deleteQueue(_ call, in *queueURLInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		delete(s.queues, q.name)
		for name, at := range s.deleted {
			if !now.Before(at.Add(queueNameReuseDelay)) {
				delete(s.deleted, name)
			}
		}
		s.deleted[q.name] = now
		q.gone = true
		q.signal()
		return struct{}{}, nil
	})
}
