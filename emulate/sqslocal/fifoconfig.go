package sqslocal

import "strings"

// The values of DeduplicationScope and FifoThroughputLimit; a FIFO queue
// starts with the first of each.
const (
	dedupScopeQueue    = "queue"
	dedupScopeGroup    = "messageGroup"
	throughputPerQueue = "perQueue"
	throughputPerGroup = "perMessageGroupId"
)

// fifoQueueAttributes are the queue attributes of FIFO queues only.
var fifoQueueAttributes = []string{
	"ContentBasedDeduplication", "DeduplicationScope", "FifoQueue", "FifoThroughputLimit",
}

// fifoRequested reports whether CreateQueue attributes ask for a FIFO
// queue: FifoQueue is true (in any case, as SQS reads it).
func fifoRequested(attrs map[string]string) bool {
	return strings.EqualFold(attrs["FifoQueue"], "true")
}

// applyFIFOAttribute sets the FIFO attribute called name to value. On a
// standard queue each is unknown, as SQS answers; on a FIFO queue
// FifoQueue may only be set to true again, the type being fixed.
func (c *queueConfig) applyFIFOAttribute(name, value string) *apiError {
	if !c.FifoQueue {
		if name == "DeduplicationScope" || name == "FifoThroughputLimit" {
			return errInvalidAttributeName.errorf("You can specify the %s only when FifoQueue is set to true.", name)
		}
		return errInvalidAttributeName.errorf("Unknown Attribute %s.", name)
	}
	switch name {
	case "FifoQueue":
		if !strings.EqualFold(value, "true") {
			return errInvalidAttributeValue.errorf("Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.")
		}
	case "ContentBasedDeduplication":
		switch {
		case strings.EqualFold(value, "true"):
			c.ContentBasedDeduplication = true
		case strings.EqualFold(value, "false"):
			c.ContentBasedDeduplication = false
		default:
			return errInvalidAttributeValue.errorf("Invalid value for the parameter ContentBasedDeduplication: %q is not true or false.", value)
		}
	case "DeduplicationScope":
		if value != dedupScopeQueue && value != dedupScopeGroup {
			return errInvalidAttributeValue.errorf("Invalid value for the parameter DeduplicationScope: %q is not messageGroup or queue.", value)
		}
		c.DeduplicationScope = value
	case "FifoThroughputLimit":
		if value != throughputPerQueue && value != throughputPerGroup {
			return errInvalidAttributeValue.errorf("Invalid value for the parameter FifoThroughputLimit: %q is not perQueue or perMessageGroupId.", value)
		}
		c.FifoThroughputLimit = value
	}
	return nil
}

// checkThroughputLimit applies the CreateQueue reference's rule that
// FifoThroughputLimit perMessageGroupId needs DeduplicationScope
// messageGroup, to the configuration once all attributes are set.
func (c queueConfig) checkThroughputLimit() *apiError {
	if c.FifoThroughputLimit == throughputPerGroup && c.DeduplicationScope != dedupScopeGroup {
		return errInvalidAttributeValue.errorf("Invalid value for the parameter FifoThroughputLimit. Reason: perMessageGroupId is allowed only when DeduplicationScope is messageGroup.")
	}
	return nil
}
