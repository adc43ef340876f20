package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
)

// Epoch is when every strategy's virtual clock starts; scenario offsets
// count from it.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// poisonMarker marks a poison message's body; the consumer fails on it.
const poisonMarker = `"kind":"POISON"`

// TenantAttribute is the message attribute carrying a message's tenant,
// Redrive's breaker key in multi-tenant scenarios.
const TenantAttribute = "tenant"

// Message is one dead-lettered message of a scenario.
type Message struct {
	// ID is its message id, which is also its origin id.
	ID string
	// Tenant is its tenant, e.g. "tenant-01".
	Tenant string
	// Group is its message group in a FIFO scenario, e.g. "group-001",
	// and Sequence its sequence number in the DLQ (its place in the
	// plan, from 1); "" and 0 otherwise.
	Group    string
	Sequence int
	// Poison says the consumer can never process it.
	Poison bool
	// Arrival is when it lands in the DLQ, as an offset from Epoch.
	Arrival time.Duration
	// Size is its body's size in bytes; 0 (or less than the JSON needs)
	// is the JSON alone.
	Size int
}

// Body is the message's JSON body, padded to Size bytes.
func (m Message) Body() string {
	kind := "order"
	if m.Poison {
		kind = "POISON"
	}
	body := fmt.Sprintf(`{"id":%q,"tenant":%q,"kind":%q}`, m.ID, m.Tenant, kind)
	const padField = `,"pad":""`
	if pad := m.Size - len(body) - len(padField); pad > 0 {
		body = body[:len(body)-1] + `,"pad":"` + strings.Repeat("x", pad) + `"}`
	}
	return body
}

// Event is the message as an SQS record, as the consumer receives it;
// from a FIFO queue with its group and sequence number.
func (m Message) Event() events.SQSMessage {
	tenant := m.Tenant
	e := events.SQSMessage{
		MessageId:   m.ID,
		Body:        m.Body(),
		EventSource: "aws:sqs",
		MessageAttributes: map[string]events.SQSMessageAttribute{
			TenantAttribute: {DataType: "String", StringValue: &tenant},
		},
	}
	if m.Group != "" {
		e.Attributes = map[string]string{message.AttrMessageGroupID: m.Group, message.AttrSequenceNumber: strconv.Itoa(m.Sequence)}
	}
	return e
}

// Plan lists the scenario's messages in order of arrival. Exactly
// round(Poison*Count) of them are poison, chosen by the seed.
func (s Scenario) Plan() []Message {
	m := s.Messages
	out := make([]Message, m.Count)
	poison := int(math.Round(m.Poison * float64(m.Count)))
	rnd := rand.New(rand.NewPCG(uint64(s.Seed), 0x9015))
	chosen := rnd.Perm(m.Count)[:poison]
	for i := range out {
		arrival := m.Start
		if m.Rate > 0 {
			arrival += time.Duration(float64(i) / m.Rate * float64(time.Second))
		}
		out[i] = Message{
			ID:      fmt.Sprintf("m-%06d", i+1),
			Tenant:  fmt.Sprintf("tenant-%02d", i%m.Tenants+1),
			Arrival: arrival,
		}
		if m.Groups > 0 {
			g := i % m.Groups
			out[i].Group, out[i].Sequence = fmt.Sprintf("group-%03d", g+1), i+1
			out[i].Tenant = fmt.Sprintf("tenant-%02d", g%m.Tenants+1)
		}
		if b := m.BodyBytes; b.Max > 0 {
			out[i].Size = b.Min + rnd.IntN(b.Max-b.Min+1)
		}
	}
	for _, i := range chosen {
		out[i].Poison = true
	}
	return out
}

// Schedule is the target's health timeline on the virtual clock.
func (s Scenario) Schedule() simtarget.Schedule {
	out := make(simtarget.Schedule, 0, len(s.Target.Health))
	for _, p := range s.Target.Health {
		out = append(out, simtarget.Phase{From: Epoch.Add(p.At), Health: healthOf(p.State), ErrorRate: p.ErrorRate})
	}
	return out
}

// healthOf maps a validated Phase.State to the consumer's health.
func healthOf(state string) simtarget.Health {
	switch state {
	case StateDown:
		return simtarget.Down
	case StateDegraded:
		return simtarget.Degraded
	default:
		return simtarget.Healthy
	}
}

// TargetOptions is the simulated consumer for every strategy; clk is the
// strategy's virtual clock, and tally takes the consumer's calls (see
// simtarget.Options.Tally).
func (s Scenario) TargetOptions(clk clock.Clock, tally func(simtarget.Call)) simtarget.Options {
	return simtarget.Options{
		Clock:    clk,
		Tally:    tally,
		Capacity: s.Target.Capacity,
		Schedule: s.Schedule(),
		Latency:  s.Target.Latency,
		Poison:   simtarget.BodyContains(poisonMarker),
		Seed:     uint64(s.Seed),
	}
}

// Outage is the span the target was not healthy: from the start of the
// first failing phase to the start of the healthy phase after the last
// failing one (the recovery). ok is false when the target never failed or
// never recovered.
func (s Scenario) Outage() (from, to time.Duration, ok bool) {
	h := s.Target.Health
	first, last := -1, -1
	for i, p := range h {
		if p.State != StateHealthy {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if last < 0 || last == len(h)-1 {
		return 0, 0, false
	}
	return h[first].At, h[last+1].At, true
}
