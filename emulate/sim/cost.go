package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/redrive/redrive/emulate/local"
)

// Prices are AWS list prices (us-east-1) used to estimate what a strategy
// costs. They are constants of the estimate, not read from AWS.
type Prices struct {
	// TransitionsPerThousand is Step Functions Standard workflows' price of
	// 1,000 state transitions (retries count).
	TransitionsPerThousand float64
	// ExpressRequestsPerMillion and ExpressGBSecond are Step Functions
	// Express workflows' prices: per execution started, and per GB-second
	// of duration (billed in ExpressMemoryMB steps, each execution rounded
	// up to 100 ms).
	ExpressRequestsPerMillion, ExpressGBSecond float64
	// LogsPerGB is CloudWatch Logs' price of ingesting 1 GB (what Express
	// executions log).
	LogsPerGB float64
	// S3PutsPerThousand and S3GetsPerThousand are S3 Standard's request
	// prices (the claim check's).
	S3PutsPerThousand, S3GetsPerThousand float64
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
	TransitionsPerThousand:    0.025,
	ExpressRequestsPerMillion: 1.00,
	ExpressGBSecond:           0.00001667,
	LogsPerGB:                 0.50,
	S3PutsPerThousand:         0.005,
	S3GetsPerThousand:         0.0004,
	LambdaRequestsPerMillion:  0.20,
	LambdaGBSecond:            0.0000133334,
	DynamoWritesPerMillion:    0.625,
	DynamoReadsPerMillion:     0.125,
}

// PriceSources are the pages the prices come from.
var PriceSources = []string{
	"https://aws.amazon.com/step-functions/pricing/",
	"https://aws.amazon.com/lambda/pricing/",
	"https://aws.amazon.com/dynamodb/pricing/on-demand/",
	"https://aws.amazon.com/cloudwatch/pricing/",
	"https://aws.amazon.com/s3/pricing/",
}

// ExpressMemoryMB is the memory an Express execution of the attempt state
// machine is billed at: its document (at most 256 KiB) is far within the
// smallest step, 64 MB.
const ExpressMemoryMB = 64

// ExpressLogBytes is what one Express execution that fails logs at the
// stack's level (ERROR, with execution data: the failure events and their
// payloads), an estimate; executions that succeed log nothing at ERROR.
const ExpressLogBytes = 4 << 10

// memoryMB is each function's memory size in MB, by its local name: the
// orchestrator's six as infra deploys them (infra/stack/functions.go,
// `functions`; keep the two in step), and the consumer, which the stack
// does not deploy, at Lambda's smallest size.
var memoryMB = map[string]int{
	local.FunctionStarter:  256,
	local.FunctionAttempt:  256,
	local.FunctionPark:     128,
	local.FunctionAdmin:    128,
	local.FunctionWaitRoom: 128,
	local.FunctionRelease:  256,
	local.FunctionConsumer: 128,
}

// Assumptions are the parts of the estimate a simulation cannot measure.
type Assumptions struct {
	// MemoryMB is each function's memory size in MB, by its local name
	// (local.FunctionConsumer for the consumer); a function has its
	// duration billed at its own size.
	MemoryMB map[string]int
	// OrchestratorDuration is the billed duration of one orchestrator
	// invocation besides waiting for the consumer (a DynamoDB read, a
	// conditional write, an SQS or Step Functions call).
	OrchestratorDuration time.Duration
	// ConsumerLatency is the billed duration of one consumer call (the
	// scenario's latency), also billed to the attempt function, which
	// waits for it.
	ConsumerLatency time.Duration
}

// AssumptionsFor is the estimate's assumptions for s: each function at its
// deployed memory size (a 128 MB consumer), 20 ms of orchestrator work per
// invocation (besides the time a release invocation spends pacing its
// ticks, which the run measures: Usage.ReleaseTime), and the scenario's
// consumer latency. DynamoDB's request units are counted by item size,
// as DynamoDB bills them, on the in-process table; on an endpoint, items
// are assumed under 1 KB (a unit a call). Free tiers are ignored, and SQS
// requests are left out of every strategy (about $0.40 per million).
func AssumptionsFor(s Scenario) Assumptions {
	return Assumptions{MemoryMB: maps.Clone(memoryMB), OrchestratorDuration: 20 * time.Millisecond, ConsumerLatency: s.Target.Latency}
}

// gb is function name's memory size in GB.
func (a Assumptions) gb(name string) float64 { return float64(a.MemoryMB[name]) / 1024 }

// memoryNote lists the orchestrator's memory sizes, largest first, e.g.
// "256 MB attempt, release; 128 MB park".
func (a Assumptions) memoryNote() string {
	byMB := map[int][]string{}
	for name, mb := range a.MemoryMB {
		if name != local.FunctionConsumer {
			byMB[mb] = append(byMB[mb], name)
		}
	}
	var parts []string
	for _, mb := range slices.Backward(slices.Sorted(maps.Keys(byMB))) {
		slices.Sort(byMB[mb])
		parts = append(parts, fmt.Sprintf("%d MB %s", mb, strings.Join(byMB[mb], ", ")))
	}
	return strings.Join(parts, "; ")
}

// Cost is an estimate in US dollars.
type Cost struct {
	StepFunctions, Lambda, DynamoDB, Logs, S3 float64
}

// Total is the sum of the parts.
func (c Cost) Total() float64 { return c.StepFunctions + c.Lambda + c.DynamoDB + c.Logs + c.S3 }

// Scale returns c times f, e.g. to a cost per million messages.
func (c Cost) Scale(f float64) Cost {
	return Cost{StepFunctions: c.StepFunctions * f, Lambda: c.Lambda * f, DynamoDB: c.DynamoDB * f, Logs: c.Logs * f, S3: c.S3 * f}
}

// Estimate prices u: every request, and every function's billed duration
// at its own memory size (a waited consumer call at the attempt's, the
// release function's paced ticks at its own).
func (p Prices) Estimate(u Usage, a Assumptions) Cost {
	requests := u.TargetCalls
	gbSeconds := float64(u.WaitedCalls)*a.ConsumerLatency.Seconds()*a.gb(local.FunctionAttempt) +
		float64(u.TargetCalls)*a.ConsumerLatency.Seconds()*a.gb(local.FunctionConsumer) +
		u.ReleaseTime.Seconds()*a.gb(local.FunctionRelease)
	for _, name := range slices.Sorted(maps.Keys(u.Invocations)) { // a fixed order, for a reproducible sum
		n := u.Invocations[name]
		requests += n
		gbSeconds += float64(n) * a.OrchestratorDuration.Seconds() * a.gb(name)
	}
	express := float64(u.ExpressStarts)/1e6*p.ExpressRequestsPerMillion +
		u.ExpressDuration.Seconds()*ExpressMemoryMB/1024*p.ExpressGBSecond
	return Cost{
		StepFunctions: float64(u.Transitions)/1000*p.TransitionsPerThousand + express,
		Logs:          float64(u.LogBytes) / (1 << 30) * p.LogsPerGB,
		S3:            float64(u.S3Puts)/1000*p.S3PutsPerThousand + float64(u.S3Gets)/1000*p.S3GetsPerThousand,
		Lambda:        float64(requests)/1e6*p.LambdaRequestsPerMillion + gbSeconds*p.LambdaGBSecond,
		DynamoDB: float64(u.DynamoWrites)/1e6*p.DynamoWritesPerMillion +
			float64(u.DynamoReads)/1e6*p.DynamoReadsPerMillion,
	}
}
