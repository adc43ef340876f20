package sim

import (
	"time"

	"github.com/redrive/redrive/tasks/release"
)

// Prices are AWS list prices (us-east-1) used to estimate what a strategy
// costs. They are constants of the estimate, not read from AWS.
type Prices struct {
	// TransitionsPerThousand is Step Functions Standard workflows' price of
	// 1,000 state transitions (retries count).
	TransitionsPerThousand float64
	// LambdaRequestsPerMillion is Lambda's price of 1M requests.
	LambdaRequestsPerMillion float64
	// LambdaGBSecond is Lambda's price of one GB-second (arm64).
	LambdaGBSecond float64
	// DynamoWritesPerMillion and DynamoReadsPerMillion are DynamoDB
	// on-demand prices of 1M write and read request units.
	DynamoWritesPerMillion, DynamoReadsPerMillion float64
}

// ListPrices are the us-east-1 list prices the estimate uses, as published
// on the pricing pages named in PriceSources (the DynamoDB on-demand
// prices are those after AWS's 50% cut of 2024-11-01). They were not
// re-checked online when this was written (2026-11): check the pages
// before quoting a figure.
var ListPrices = Prices{
	TransitionsPerThousand:   0.025,
	LambdaRequestsPerMillion: 0.20,
	LambdaGBSecond:           0.0000133334,
	DynamoWritesPerMillion:   0.625,
	DynamoReadsPerMillion:    0.125,
}

// PriceSources are the pages the prices come from.
var PriceSources = []string{
	"https://aws.amazon.com/step-functions/pricing/",
	"https://aws.amazon.com/lambda/pricing/",
	"https://aws.amazon.com/dynamodb/pricing/on-demand/",
}

// Assumptions are the parts of the estimate a simulation cannot measure.
type Assumptions struct {
	// LambdaMemoryMB is every function's memory size, orchestrator and
	// consumer alike.
	LambdaMemoryMB int
	// OrchestratorDuration is the billed duration of one orchestrator
	// invocation besides waiting for the consumer (a DynamoDB read, a
	// conditional write, an SQS or Step Functions call).
	OrchestratorDuration time.Duration
	// ConsumerLatency is the billed duration of one consumer call (the
	// scenario's latency), also billed to an orchestrator that waits for
	// it.
	ConsumerLatency time.Duration
	// ReleaseInvocation is the billed duration of one releaser invocation:
	// it sleeps between releases through all its ticks (the last
	// invocation of a releaser is shorter: an upper bound).
	ReleaseInvocation time.Duration
}

// AssumptionsFor is the estimate's assumptions for s: 128 MB functions,
// 20 ms of orchestrator work per invocation (all of its ten one-second
// ticks for the releaser's), and the scenario's consumer latency. Item
// sizes are assumed under 1 KB (one write unit per write, one read unit
// per strongly consistent read); free tiers are ignored, and SQS requests
// are left out of every strategy (about $0.40 per million).
func AssumptionsFor(s Scenario) Assumptions {
	return Assumptions{LambdaMemoryMB: 128, OrchestratorDuration: 20 * time.Millisecond, ConsumerLatency: s.Target.Latency,
		ReleaseInvocation: release.TicksPerInvocation * time.Second}
}

// Cost is an estimate in US dollars.
type Cost struct {
	StepFunctions, Lambda, DynamoDB float64
}

// Total is the sum of the parts.
func (c Cost) Total() float64 { return c.StepFunctions + c.Lambda + c.DynamoDB }

// Scale returns c times f, e.g. to a cost per million messages.
func (c Cost) Scale(f float64) Cost {
	return Cost{StepFunctions: c.StepFunctions * f, Lambda: c.Lambda * f, DynamoDB: c.DynamoDB * f}
}

// Estimate prices u.
func (p Prices) Estimate(u Usage, a Assumptions) Cost {
	gb := float64(a.LambdaMemoryMB) / 1024
	seconds := float64(u.Invocations-u.ReleaseInvocations)*a.OrchestratorDuration.Seconds() +
		float64(u.ReleaseInvocations)*a.ReleaseInvocation.Seconds() +
		float64(u.WaitedCalls+u.TargetCalls)*a.ConsumerLatency.Seconds()
	return Cost{
		StepFunctions: float64(u.Transitions) / 1000 * p.TransitionsPerThousand,
		Lambda: float64(u.Invocations+u.TargetCalls)/1e6*p.LambdaRequestsPerMillion +
			seconds*gb*p.LambdaGBSecond,
		DynamoDB: float64(u.DynamoWrites)/1e6*p.DynamoWritesPerMillion +
			float64(u.DynamoReads)/1e6*p.DynamoReadsPerMillion,
	}
}
