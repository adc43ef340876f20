package quota

import (
	"fmt"
	"slices"
	"strings"
)

// Name names one quota; it keys the maps a Report holds.
type Name string

// The quotas an Account keeps.
const (
	// StandardStart is StartExecution of Standard workflows.
	StandardStart Name = "sfn.StartExecution.standard"
	// ExpressStart is StartExecution of Express workflows.
	ExpressStart Name = "sfn.StartExecution.express"
	// Transitions is state transitions of Standard workflows, shared by
	// every execution of the account: a transition beyond it waits.
	Transitions Name = "sfn.StateTransition"
	// SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat are the
	// callback API calls, each its own bucket.
	SendTaskSuccess   Name = "sfn.SendTaskSuccess"
	SendTaskFailure   Name = "sfn.SendTaskFailure"
	SendTaskHeartbeat Name = "sfn.SendTaskHeartbeat"
	// OpenStandard is the Standard executions open at once
	// (ExecutionLimitExceeded beyond it); Express executions do not count.
	OpenStandard Name = "sfn.OpenExecutions.standard"
	// LambdaConcurrency is the Lambda invocations running at once in the
	// account (TooManyRequestsException beyond it).
	LambdaConcurrency Name = "lambda.ConcurrentExecutions"
	// PartitionRead and PartitionWrite are the read and write units one
	// DynamoDB partition serves per second; each partition key is taken
	// as its own partition.
	PartitionRead  Name = "dynamodb.PartitionRead"
	PartitionWrite Name = "dynamodb.PartitionWrite"
)

// Rate is a token bucket: Burst tokens at most, refilled at PerSecond.
type Rate struct {
	Burst     float64
	PerSecond float64
}

// Profile is an account's quotas: the rated calls' buckets and the limits
// on what is open at once.
type Profile struct {
	// Name names the profile in scenarios ("standard", "large").
	Name string
	// Rates are the token buckets, by quota; a quota without one is not
	// rate-limited.
	Rates map[Name]Rate
	// Limits bound what is open at once, by quota.
	Limits map[Name]int
}

// rates are the buckets of a Region class, given its Standard
// StartExecution, state transition and SendTask* buckets: the rest are
// the same in every Region.
func rates(start, transitions, sendTask Rate) map[Name]Rate {
	return map[Name]Rate{
		StandardStart:     start,
		ExpressStart:      {Burst: 6000, PerSecond: 6000},
		Transitions:       transitions,
		SendTaskSuccess:   sendTask,
		SendTaskFailure:   sendTask,
		SendTaskHeartbeat: sendTask,
		PartitionRead:     {Burst: 3000, PerSecond: 3000},
		PartitionWrite:    {Burst: 1000, PerSecond: 1000},
	}
}

// limits are the open-at-once quotas, the same in every Region.
func limits() map[Name]int {
	return map[Name]int{OpenStandard: 1_000_000, LambdaConcurrency: 1000}
}

// Standard is the default quotas of most Regions (the Step Functions and
// Lambda quota pages): StartExecution 800 burst and 150 per second,
// state transitions 800 and 800, SendTask* 1,500 and 300, Express
// StartExecution 6,000 and 6,000; a million open Standard executions;
// 1,000 concurrent Lambda invocations; 3,000 read and 1,000 write units
// per DynamoDB partition and second.
var Standard = Profile{Name: "standard",
	Rates: rates(Rate{800, 150}, Rate{800, 800}, Rate{1500, 300}), Limits: limits()}

// Large is Standard with the Step Functions buckets of the largest
// Regions (us-east-1, us-west-2, eu-west-1): StartExecution 1,300 and
// 300, state transitions 5,000 and 5,000, SendTask* 3,000 and 500.
var Large = Profile{Name: "large",
	Rates: rates(Rate{1300, 300}, Rate{5000, 5000}, Rate{3000, 500}), Limits: limits()}

// Profiles are the named profiles a scenario may choose.
var Profiles = []Profile{Standard, Large}

// ByName returns the profile named name.
func ByName(name string) (Profile, error) {
	for _, p := range Profiles {
		if p.Name == name {
			return p.clone(), nil
		}
	}
	names := make([]string, len(Profiles))
	for i, p := range Profiles {
		names[i] = p.Name
	}
	return Profile{}, fmt.Errorf("quota: no profile %q (want one of %s)", name, strings.Join(names, ", "))
}

// WithLimit returns a copy of p whose limit on n is limit (a scenario
// lowering the open executions, say).
func (p Profile) WithLimit(n Name, limit int) Profile {
	c := p.clone()
	c.Limits[n] = limit
	return c
}

// clone copies p's maps, so that a change to the copy leaves p as it is.
func (p Profile) clone() Profile {
	c := Profile{Name: p.Name, Rates: make(map[Name]Rate, len(p.Rates)), Limits: make(map[Name]int, len(p.Limits))}
	for n, r := range p.Rates {
		c.Rates[n] = r
	}
	for n, l := range p.Limits {
		c.Limits[n] = l
	}
	return c
}

// names lists the quotas of p, sorted.
func (p Profile) names() []Name {
	var out []Name
	for n := range p.Rates {
		out = append(out, n)
	}
	for n := range p.Limits {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
