package sqslocal

import (
	"net/url"
	"regexp"
	"strings"
)

// queueNamePattern is SQS's rule for standard queue names, and for FIFO
// queue names without their .fifo suffix: alphanumeric characters,
// hyphens and underscores.
var queueNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// maxQueueNameLen bounds queue names, a FIFO queue's .fifo suffix
// included.
const maxQueueNameLen = 80

// fifoSuffix ends the name of every FIFO queue, and only theirs.
const fifoSuffix = ".fifo"

// checkQueueName validates a CreateQueue name for a FIFO queue or a
// standard one: a standard queue's name cannot end in .fifo, as the
// period is not allowed, and a FIFO queue's must.
func checkQueueName(name string, fifo bool) *apiError {
	if name == "" {
		return missing("QueueName")
	}
	base, suffixed := strings.CutSuffix(name, fifoSuffix)
	switch {
	case fifo && (!suffixed || !queueNamePattern.MatchString(base) || len(name) > maxQueueNameLen):
		return invalidValue("QueueName", name, "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length")
	case !fifo && (!queueNamePattern.MatchString(name) || len(name) > maxQueueNameLen):
		return invalidValue("QueueName", name, "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")
	}
	return nil
}

// queueURL is the URL of queue name as seen by a client of base.
func (s *Server) queueURL(base, name string) string {
	return base + "/" + s.opts.Account + "/" + name
}

// queueARN is the ARN of queue name.
func (s *Server) queueARN(name string) string {
	return "arn:aws:sqs:" + s.opts.Region + ":" + s.opts.Account + ":" + name
}

// nameFromURL returns the queue name in a queue URL
// (scheme://host/<account>/<name>; the host is not checked, so a URL from
// any client of the server works). A URL of another account names no
// queue here. Every action on a queue starts here, so the names of URLs
// parsed are kept. Call with s.mu held.
func (s *Server) nameFromURL(raw string) (string, *apiError) {
	if raw == "" {
		return "", missing("QueueUrl")
	}
	if name, ok := s.urlNames[raw]; ok {
		return name, nil
	}
	u, err := url.Parse(raw)
	parts := []string{}
	if err == nil {
		parts = strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	}
	if err != nil || u.Scheme == "" || u.Host == "" || len(parts) != 2 || parts[1] == "" {
		return "", errInvalidAddress.errorf("The address %s is not valid for this endpoint.", raw)
	}
	if parts[0] != s.opts.Account {
		return "", noSuchQueue()
	}
	if s.urlNames == nil {
		s.urlNames = map[string]string{}
	}
	if len(s.urlNames) < maxURLNames {
		s.urlNames[raw] = parts[1]
	}
	return parts[1], nil
}

// maxURLNames bounds Server.urlNames: a stack uses a few queues, each by
// one URL or two.
const maxURLNames = 1024

// nameFromARN returns the queue name in an SQS ARN of this server's region
// and account, or false.
func (s *Server) nameFromARN(arn string) (string, bool) {
	return strings.CutPrefix(arn, s.queueARN(""))
}
