package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/redrive/redrive/emulate/sim"
)

// BenchmarkStrategies plays the small scenario (80 messages, a 10-minute
// outage) with each strategy and reports simulated seconds per wall
// second, state transitions per message and calls during the outage.
func BenchmarkStrategies(b *testing.B) {
	s := small()
	msgs := s.Plan()
	for _, st := range sim.Strategies(false, "") {
		b.Run(st.Name(), func(b *testing.B) {
			var simulated time.Duration
			var m sim.Metrics
			for b.Loop() {
				o, err := st.Run(context.Background(), s, msgs, &recorder{})
				if err != nil {
					b.Fatal(err)
				}
				simulated += o.End.Sub(sim.Epoch)
				m = sim.Measure(s, msgs, o, sim.ListPrices)
			}
			b.ReportMetric(simulated.Seconds()/b.Elapsed().Seconds(), "sim-s/wall-s")
			b.ReportMetric(m.TransitionsPer, "transitions/msg")
			b.ReportMetric(float64(m.OutageCalls), "outage-calls")
			b.ReportMetric(float64(m.Messages)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
