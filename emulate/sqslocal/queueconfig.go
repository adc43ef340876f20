package sqslocal

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// queueConfig holds a queue's settable attributes, and its type.
type queueConfig struct {
	DelaySeconds                  int
	MaximumMessageSize            int
	MessageRetentionPeriod        int
	ReceiveMessageWaitTimeSeconds int
	VisibilityTimeout             int
	RedrivePolicy                 *redrivePolicy
	// FifoQueue is the queue's type, fixed at creation; the fields below
	// it are a FIFO queue's only.
	FifoQueue                 bool
	ContentBasedDeduplication bool
	DeduplicationScope        string // dedupScopeQueue or dedupScopeGroup
	FifoThroughputLimit       string // throughputPerQueue or throughputPerGroup
}

// redrivePolicy sends a message to the dead-letter queue once it has been
// received MaxReceiveCount times.
type redrivePolicy struct {
	DeadLetterTargetArn string `json:"deadLetterTargetArn"`
	MaxReceiveCount     int    `json:"maxReceiveCount"`
}

// intAttribute is a settable integer queue attribute and its range.
type intAttribute struct {
	min, max int
	field    func(*queueConfig) *int
}

// Queue attribute defaults and limits from the CreateQueue reference.
const (
	defaultRetentionSeconds  = 345600 // 4 days
	defaultVisibilitySeconds = 30
	maxDelaySeconds          = 900
	maxRetentionSeconds      = 1209600 // 14 days
	maxVisibilitySeconds     = 43200   // 12 hours
	maxWaitSeconds           = 20
	maxMaxReceiveCount       = 1000
)

// readOnlyQueueAttributes are reported by GetQueueAttributes but cannot be
// set.
var readOnlyQueueAttributes = []string{
	"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed",
	"ApproximateNumberOfMessagesNotVisible", "CreatedTimestamp",
	"LastModifiedTimestamp", "QueueArn",
}

// unsupportedQueueAttributes are real SQS attributes this server does not
// implement: encryption, policies.
var unsupportedQueueAttributes = []string{
	"KmsDataKeyReusePeriodSeconds", "KmsMasterKeyId", "Policy",
	"RedriveAllowPolicy", "SqsManagedSseEnabled",
}

// intAttributes returns the integer attributes; MaximumMessageSize tops
// out at the server's MaxMessageSize.
func (s *Server) intAttributes() map[string]intAttribute {
	return map[string]intAttribute{
		"DelaySeconds":                  {0, maxDelaySeconds, func(c *queueConfig) *int { return &c.DelaySeconds }},
		"MaximumMessageSize":            {minMessageSize, s.opts.MaxMessageSize, func(c *queueConfig) *int { return &c.MaximumMessageSize }},
		"MessageRetentionPeriod":        {60, maxRetentionSeconds, func(c *queueConfig) *int { return &c.MessageRetentionPeriod }},
		"ReceiveMessageWaitTimeSeconds": {0, maxWaitSeconds, func(c *queueConfig) *int { return &c.ReceiveMessageWaitTimeSeconds }},
		"VisibilityTimeout":             {0, maxVisibilitySeconds, func(c *queueConfig) *int { return &c.VisibilityTimeout }},
	}
}

// defaultQueueConfig is the configuration of a new queue, FIFO or not.
func (s *Server) defaultQueueConfig(fifo bool) queueConfig {
	cfg := queueConfig{
		MaximumMessageSize:     s.opts.MaxMessageSize,
		MessageRetentionPeriod: defaultRetentionSeconds,
		VisibilityTimeout:      defaultVisibilitySeconds,
		FifoQueue:              fifo,
	}
	if fifo {
		cfg.DeduplicationScope, cfg.FifoThroughputLimit = dedupScopeQueue, throughputPerQueue
	}
	return cfg
}

// applyQueueAttributes returns cfg with the attributes in set applied, for
// the queue called self. It runs under s.mu (a redrive policy's target
// must exist).
func (s *Server) applyQueueAttributes(cfg queueConfig, set map[string]string, self string) (queueConfig, *apiError) {
	ints := s.intAttributes()
	for _, name := range slices.Sorted(maps.Keys(set)) {
		value := set[name]
		if a, ok := ints[name]; ok {
			n, err := strconv.Atoi(value)
			if err != nil || n < a.min || n > a.max {
				return cfg, errInvalidAttributeValue.errorf("Invalid value for the parameter %s: %q is not an integer from %d to %d.", name, value, a.min, a.max)
			}
			*a.field(&cfg) = n
			continue
		}
		var err *apiError
		switch {
		case name == "RedrivePolicy":
			cfg.RedrivePolicy, err = s.parseRedrivePolicy(value, self, cfg.FifoQueue)
		case slices.Contains(fifoQueueAttributes, name):
			err = cfg.applyFIFOAttribute(name, value)
		case slices.Contains(unsupportedQueueAttributes, name):
			err = errUnsupportedOperation.errorf("sqslocal does not implement the queue attribute %s.", name)
		default:
			err = errInvalidAttributeName.errorf("Unknown Attribute %s.", name)
		}
		if err != nil {
			return cfg, err
		}
	}
	return cfg, cfg.checkThroughputLimit()
}

// parseRedrivePolicy parses a RedrivePolicy value for the queue called
// self, a FIFO queue or not; "" removes the policy. Its target must be
// another existing queue of the same type. It runs under s.mu.
func (s *Server) parseRedrivePolicy(value, self string, fifo bool) (*redrivePolicy, *apiError) {
	p, err := decodeRedrivePolicy(value)
	if p == nil || err != nil {
		return p, err
	}
	name, ok := s.nameFromARN(p.DeadLetterTargetArn)
	target := s.queues[name]
	switch {
	case !ok || target == nil:
		return nil, badRedrivePolicy(value, "Dead letter target does not exist.")
	case name == self:
		return nil, badRedrivePolicy(value, "A queue can not be its own dead letter target.")
	case target.cfg.FifoQueue != fifo:
		return nil, badRedrivePolicy(value, "Dead-letter queue must be same type of queue as the source..")
	}
	return p, nil
}

// decodeRedrivePolicy parses a RedrivePolicy value without looking for its
// target; "" is no policy. maxReceiveCount may be a JSON number or a
// string holding one, as SQS accepts both.
func decodeRedrivePolicy(value string) (*redrivePolicy, *apiError) {
	if value == "" {
		return nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(value), &raw); err != nil {
		return nil, badRedrivePolicy(value, "Redrive policy is not a JSON object.")
	}
	for _, key := range slices.Sorted(maps.Keys(raw)) {
		if key != "deadLetterTargetArn" && key != "maxReceiveCount" {
			return nil, badRedrivePolicy(value, "Redrive policy contains the unknown key "+key+".")
		}
	}
	var p redrivePolicy
	if err := json.Unmarshal(raw["deadLetterTargetArn"], &p.DeadLetterTargetArn); err != nil || p.DeadLetterTargetArn == "" {
		return nil, badRedrivePolicy(value, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn.")
	}
	count, ok := jsonInt(raw["maxReceiveCount"])
	if !ok {
		return nil, badRedrivePolicy(value, "Redrive policy does not contain mandatory attribute: maxReceiveCount.")
	}
	if count < 1 || count > maxMaxReceiveCount {
		return nil, badRedrivePolicy(value, "Invalid value for maxReceiveCount: "+strconv.Itoa(count)+", valid values are from 1 to 1000 both inclusive.")
	}
	p.MaxReceiveCount = count
	return &p, nil
}

// badRedrivePolicy is the error for an invalid RedrivePolicy value.
func badRedrivePolicy(value, reason string) *apiError {
	return invalidValue("RedrivePolicy", value, reason)
}

// jsonInt reads an integer given as a JSON number or a JSON string.
func jsonInt(raw json.RawMessage) (int, bool) {
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		return n, true
	}
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(str)
	return n, err == nil
}

// attributes renders the configuration as GetQueueAttributes reports it.
func (c queueConfig) attributes() map[string]string {
	out := map[string]string{
		"DelaySeconds":                  strconv.Itoa(c.DelaySeconds),
		"MaximumMessageSize":            strconv.Itoa(c.MaximumMessageSize),
		"MessageRetentionPeriod":        strconv.Itoa(c.MessageRetentionPeriod),
		"ReceiveMessageWaitTimeSeconds": strconv.Itoa(c.ReceiveMessageWaitTimeSeconds),
		"VisibilityTimeout":             strconv.Itoa(c.VisibilityTimeout),
	}
	if c.RedrivePolicy != nil {
		b, _ := json.Marshal(c.RedrivePolicy) // two plain fields: cannot fail
		out["RedrivePolicy"] = string(b)
	}
	if c.FifoQueue {
		out["FifoQueue"] = "true"
		out["ContentBasedDeduplication"] = strconv.FormatBool(c.ContentBasedDeduplication)
		out["DeduplicationScope"] = c.DeduplicationScope
		out["FifoThroughputLimit"] = c.FifoThroughputLimit
	}
	return out
}
