package target

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/redrive/redrive/lambda/config"
)

// Kind names a delivery target (TARGET_KIND).
type Kind string

// The target kinds.
const (
	// KindLambda invokes the consumer function with a one-record SQS event.
	KindLambda Kind = "lambda"
	// KindSQS sends the message back to the source queue.
	KindSQS Kind = "sqs"
)

// The environment variables Config is read from.
const (
	EnvKind             = "TARGET_KIND"
	EnvFunction         = "TARGET_FUNCTION"
	EnvQueueURL         = "TARGET_QUEUE_URL"
	EnvSourceARN        = "TARGET_SOURCE_ARN"
	EnvPoisonErrorTypes = "POISON_ERROR_TYPES"
	// EnvThrottleErrorTypes lists consumer error types that mean "too much
	// load", e.g. a downstream's 429 surfaced by the consumer.
	EnvThrottleErrorTypes = "THROTTLE_ERROR_TYPES"
)

// Lambda's FunctionName pattern (a name, a partial or a full ARN, with an
// optional version or alias) and length limit, from the Invoke API.
var (
	functionNamePattern = regexp.MustCompile(`^(arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(-gov)?-[a-z]+-\d:)?(\d{12}:)?(function:)?([a-zA-Z0-9_.-]{1,64})(:(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$`)
	maxFunctionName     = 170
)

// queueARNPattern matches an SQS queue ARN; the region is group 1.
var queueARNPattern = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:sqs:([a-z]{2}(?:-gov)?-[a-z]+-\d):\d{12}:[a-zA-Z0-9_-]{1,80}(?:\.fifo)?$`)

// Config says where messages are delivered. Variables that the chosen kind
// does not use are ignored.
type Config struct {
	// Kind is TARGET_KIND: "lambda" or "sqs". Required.
	Kind Kind
	// Function is TARGET_FUNCTION, the consumer's name or ARN, optionally
	// with ":version" or ":alias". Required for lambda.
	Function string
	// QueueURL is TARGET_QUEUE_URL, the source queue's URL. Required for
	// sqs.
	QueueURL string
	// SourceARN is TARGET_SOURCE_ARN, the source queue's ARN, given to the
	// consumer as the record's eventSourceARN (and its region as
	// awsRegion). Optional; lambda only.
	SourceARN string
	// PoisonErrorTypes is POISON_ERROR_TYPES, a comma list of the error
	// types that mean the message is bad (see Classifier). Empty: every
	// failure is transient.
	PoisonErrorTypes []string
	// ThrottleErrorTypes is THROTTLE_ERROR_TYPES, a comma list of the
	// consumer error types that mean the target is overloaded: the message
	// returns to the waiting room without using an attempt and the release
	// slows down; the breaker never counts them. Lambda's own
	// TooManyRequestsException and SQS's throttling codes are always
	// throttling.
	ThrottleErrorTypes []string
}

// FromEnv reads a Config and records every bad variable in env, so a cold
// start reports them together with the rest of the task's settings.
func FromEnv(env *config.Env) Config {
	c := Config{
		Kind:               Kind(strings.ToLower(env.Value(EnvKind))),
		Function:           env.Value(EnvFunction),
		QueueURL:           env.Value(EnvQueueURL),
		SourceARN:          env.Value(EnvSourceARN),
		PoisonErrorTypes:   env.List(EnvPoisonErrorTypes, nil),
		ThrottleErrorTypes: env.List(EnvThrottleErrorTypes, nil),
	}
	env.FailAll(c.problems())
	return c
}

// Validate reports every problem with c, each naming its variable; nil
// when c is usable.
func (c Config) Validate() error {
	return config.Join(c.problems())
}

// problems lists what is wrong with c, one VarError per problem.
func (c Config) problems() []*config.VarError {
	var out []*config.VarError
	fail := func(name, value, problem string) {
		out = append(out, &config.VarError{Name: name, Value: value, Problem: problem})
	}
	switch c.Kind {
	case KindLambda:
		if p := functionProblem(c.Function); p != "" {
			fail(EnvFunction, c.Function, p)
		}
		if c.SourceARN != "" && !queueARNPattern.MatchString(c.SourceARN) {
			fail(EnvSourceARN, c.SourceARN, "want an SQS queue ARN, e.g. arn:aws:sqs:us-east-1:123456789012:orders")
		}
	case KindSQS:
		if p := queueURLProblem(c.QueueURL); p != "" {
			fail(EnvQueueURL, c.QueueURL, p)
		}
	case "":
		fail(EnvKind, "", `required: "lambda" or "sqs"`)
	default:
		fail(EnvKind, string(c.Kind), `want "lambda" or "sqs"`)
	}
	for _, t := range c.PoisonErrorTypes {
		if p := poisonTypeProblem(t); p != "" {
			fail(EnvPoisonErrorTypes, strings.Join(c.PoisonErrorTypes, ","), fmt.Sprintf("%q: %s", t, p))
		}
	}
	for _, t := range c.ThrottleErrorTypes {
		if p := throttleTypeProblem(t, c.PoisonErrorTypes); p != "" {
			fail(EnvThrottleErrorTypes, strings.Join(c.ThrottleErrorTypes, ","), fmt.Sprintf("%q: %s", t, p))
		}
	}
	return out
}

// functionProblem says what is wrong with a TARGET_FUNCTION; "" if nothing.
func functionProblem(name string) string {
	switch {
	case name == "":
		return "required when TARGET_KIND=lambda"
	case len(name) > maxFunctionName || !functionNamePattern.MatchString(name):
		return "want a Lambda function name or ARN, optionally with :version or :alias"
	}
	return ""
}

// queueURLProblem says what is wrong with a TARGET_QUEUE_URL; "" if nothing.
func queueURLProblem(raw string) string {
	if raw == "" {
		return "required when TARGET_KIND=sqs"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return "want a queue URL, e.g. https://sqs.us-east-1.amazonaws.com/123456789012/orders"
	}
	return ""
}
