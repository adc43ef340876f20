package stack

import (
	"fmt"
	"regexp"
	"strings"
)

// arn is a parsed Amazon Resource Name.
type arn struct {
	partition, service, region, account, resource string
}

// The parts of an ARN the stack accepts, by service.
var (
	arnPartition  = regexp.MustCompile(`^aws(-[a-z]+)*$`)
	arnRegion     = regexp.MustCompile(`^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$`)
	arnAccount    = regexp.MustCompile(`^\d{12}$`)
	queueName     = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}(\.fifo)?$`)
	functionName  = regexp.MustCompile(`^function:[A-Za-z0-9_-]{1,64}(:(\$LATEST|[A-Za-z0-9_-]{1,128}))?$`)
	kmsKeyID      = regexp.MustCompile(`^key/[A-Za-z0-9-]{1,128}$`)
	snsTopicName  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}(\.fifo)?$`)
	resourceCheck = map[string]struct {
		pattern *regexp.Regexp
		example string
	}{
		"sqs":    {queueName, "arn:aws:sqs:us-east-1:123456789012:orders-dlq"},
		"lambda": {functionName, "arn:aws:lambda:us-east-1:123456789012:function:orders-consumer"},
		"kms":    {kmsKeyID, "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
		"sns":    {snsTopicName, "arn:aws:sns:us-east-1:123456789012:redrive-alarms"},
	}
)

// parseARN parses s as an ARN of service; the error says what is wrong and
// shows a valid example.
func parseARN(s, service string) (arn, error) {
	check := resourceCheck[service]
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return arn{}, fmt.Errorf("%q is not an ARN; want e.g. %s", s, check.example)
	}
	a := arn{partition: parts[1], service: parts[2], region: parts[3], account: parts[4], resource: parts[5]}
	switch {
	case a.service != service:
		return arn{}, fmt.Errorf("%q is an ARN of %q, want %q; e.g. %s", s, a.service, service, check.example)
	case !arnPartition.MatchString(a.partition):
		return arn{}, fmt.Errorf("%q: partition %q is not valid", s, a.partition)
	case !arnRegion.MatchString(a.region):
		return arn{}, fmt.Errorf("%q: region %q is not valid", s, a.region)
	case !arnAccount.MatchString(a.account):
		return arn{}, fmt.Errorf("%q: account %q is not 12 digits", s, a.account)
	case !check.pattern.MatchString(a.resource):
		return arn{}, fmt.Errorf("%q: resource %q is not valid; want e.g. %s", s, a.resource, check.example)
	}
	return a, nil
}
