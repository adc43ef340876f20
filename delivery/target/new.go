package target

import (
	"fmt"
)

// Clients are the AWS clients a Target may use; New needs only the one for
// the configured kind.
type Clients struct {
	// Lambda invokes the consumer (TARGET_KIND=lambda).
	Lambda InvokeAPI
	// SQS sends to the source queue (TARGET_KIND=sqs).
	SQS SendMessageAPI
}

// New returns the Target cfg.Kind names, or an error naming every bad
// setting (see Config.Validate) or the missing client.
func New(cfg Config, clients Clients) (Target, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	classifier, err := NewClassifier(cfg.PoisonErrorTypes, cfg.ThrottleErrorTypes)
	if err != nil {
		return nil, err
	}
	switch cfg.Kind {
	case KindLambda:
		if clients.Lambda == nil {
			return nil, fmt.Errorf("target: TARGET_KIND=lambda needs a Lambda client")
		}
		t := &lambdaTarget{client: clients.Lambda, function: cfg.Function, sourceARN: cfg.SourceARN, classifier: classifier}
		if m := queueARNPattern.FindStringSubmatch(cfg.SourceARN); m != nil {
			t.region = m[1]
		}
		return t, nil
	case KindSQS:
		if clients.SQS == nil {
			return nil, fmt.Errorf("target: TARGET_KIND=sqs needs an SQS client")
		}
		return &sqsTarget{client: clients.SQS, queueURL: cfg.QueueURL}, nil
	}
	return nil, fmt.Errorf("target: unknown kind %q", cfg.Kind) // unreachable after Validate
}
