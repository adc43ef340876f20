package sim

import (
	"context"
	"time"

	"github.com/redrive/redrive/emulate/executor"
)

// probe reads a running strategy: its usage so far, how many messages are
// settled (delivered or parked), and whether it has nothing left to do.
type probe func() (u Usage, settled int, done bool)

// sampler reads a strategy every step of virtual time on its executor,
// recording usage (and the waiting room, when room is set) and reporting
// progress, until the strategy is done or the horizon passes. Its events
// keep the executor's Run going meanwhile, so it must stop on done.
type sampler struct {
	exec     *executor.Executor
	strategy string
	step     time.Duration
	horizon  time.Time
	total    int
	obs      Observer
	probe    probe
	room     RoomSource // optional: nil records no room readings

	samples []Sample
	end     time.Time // when the strategy was found done
}

// newSampler returns a sampler of the strategy named name on exec.
func newSampler(exec *executor.Executor, name string, s Scenario, obs Observer, p probe) *sampler {
	return &sampler{
		exec: exec, strategy: name, step: s.sampleStep(), horizon: Epoch.Add(s.Horizon),
		total: s.Messages.Count, obs: obs, probe: p,
	}
}

// start schedules the first reading at Epoch.
func (p *sampler) start() { p.exec.At(Epoch, p.tick) }

// tick takes one reading and schedules the next.
func (p *sampler) tick(context.Context) {
	now := p.exec.Now()
	if p.read(now) {
		p.end = now
		return
	}
	if next := now.Add(p.step); !next.After(p.horizon) {
		p.exec.At(next, p.tick)
	}
}

// read records a sample at now and reports progress; it returns done.
func (p *sampler) read(now time.Time) bool {
	u, settled, done := p.probe()
	at := now.Sub(Epoch)
	if n := len(p.samples); n > 0 && p.samples[n-1].At == at {
		p.samples = p.samples[:n-1]
	}
	sample := Sample{At: at, Usage: u}
	if p.room != nil {
		sample.Room.Depth, sample.Room.Releases = p.room()
	}
	p.samples = append(p.samples, sample)
	p.obs.Progress(p.strategy, at, settled, p.total)
	return done
}

// finish returns the samples and when the run ended: when it was found
// done, or now (the horizon) after a last reading.
func (p *sampler) finish() ([]Sample, time.Time) {
	if p.end.IsZero() {
		p.end = p.exec.Now()
		p.read(p.end)
	}
	return p.samples, p.end
}
