package release

import (
	"context"
	"math"
	"time"

	"github.com/redrive/redrive/lambda/telemetry"
)

// Metrics receives a tick's counts and the room's gauges;
// *telemetry.Metrics satisfies it.
type Metrics interface {
	Count(key string, name telemetry.Name, n int64)
	Gauges(key string, gauges ...telemetry.Gauge)
}

var _ Metrics = (*telemetry.Metrics)(nil)

// depthEvery is how often, at most, a controller counts its room: the count
// reads every entry through the index, so once a minute (the metrics'
// resolution) rather than once a tick.
const depthEvery = time.Minute

// report writes what a tick did and how the room stands: Released, the
// pace (ReleaseRatePerMinute), the oldest entry's age and, on the first
// tick of an execution and about once a minute after, the room's depth.
// Metrics never fail a tick: a failed read leaves its gauge out.
func (h *Handler) report(ctx context.Context, out Output, tick time.Duration) {
	if h.Metrics == nil {
		return
	}
	key := out.BreakerKey
	if out.Released > 0 {
		h.Metrics.Count(key, telemetry.Released, int64(out.Released))
	}
	every := max(int(depthEvery/max(tick, time.Millisecond)), 1)
	gauges, err := h.Room.Gauges(ctx, key, h.Clock.Now(), (out.Ticks-1)%every == 0)
	if err != nil {
		h.Logger.WarnContext(ctx, "could not read the room for its metrics", "breaker", key, "error", err.Error())
	}
	gauges = append(gauges, telemetry.Gauge{Name: telemetry.ReleaseRatePerMinute, Value: int64(math.Round(out.Rate * 60)), Unit: telemetry.UnitCount})
	h.Metrics.Gauges(key, gauges...)
}
