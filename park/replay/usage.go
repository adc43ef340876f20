package replay

// Usage is what redriving one message costs in requests, the quantities
// a price list turns into dollars.
type Usage struct {
	// Transitions counts Step Functions state transitions.
	Transitions float64
	// StarterInvocations and AttemptInvocations count Lambda invocations
	// of the starter (one per DLQ batch of up to 10) and of the Attempt.
	StarterInvocations, AttemptInvocations float64
	// ConsumerCalls counts calls of the target.
	ConsumerCalls float64
	// DynamoReads and DynamoWrites count DynamoDB request units.
	DynamoReads, DynamoWrites float64
}

// FirstTry is the usage of one replayed message delivered on its first
// try, the breaker CLOSED: the CLOSED path's 3 transitions (Attempt,
// Route, Delivered), one Attempt invocation and one consumer call; a
// starter invocation of its own (at a replay's rate each message arrives
// alone; a batch of ten would share one); one strongly consistent read of
// the breaker row; six writes at most: the pace row, the delivery
// record's two, the breaker row (none when its window holds no failure)
// and the replay's two in the lot's index (the take before the send, the
// delete of the message's entry after). The
// local stack measures it (test/replay_test.go). SQS requests are left
// out, as the simulation's cost model leaves them out. A message that
// fails again, waits in the room or is parked again costs more.
var FirstTry = Usage{Transitions: 3, StarterInvocations: 1, AttemptInvocations: 1, ConsumerCalls: 1, DynamoReads: 1, DynamoWrites: 6}

// Times is u for n messages.
func (u Usage) Times(n int) Usage {
	f := float64(n)
	return Usage{
		Transitions: u.Transitions * f, StarterInvocations: u.StarterInvocations * f, AttemptInvocations: u.AttemptInvocations * f,
		ConsumerCalls: u.ConsumerCalls * f, DynamoReads: u.DynamoReads * f, DynamoWrites: u.DynamoWrites * f,
	}
}
