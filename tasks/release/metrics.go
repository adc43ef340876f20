package release

import (
	"context"
	"math"
	"time"

	"github.com/redrive/redrive/tasks/telemetry"
)

// Metrics receives a tick's counts and the room's gauges;
// *telemetry.Metrics satisfies it.
type Metrics interface {
	Count(key string, name telemetry.Name, n int64)
	Gauges(key string, gauges ...telemetry.Gauge)
}

var _ Metrics = (*telemetry.Metrics)(nil)

// depthEvery is how often, at most, a releaser counts its room: the count
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
	gauges := []telemetry.Gauge{{Name: telemetry.ReleaseRatePerMinute, Value: int64(math.Round(out.Rate * 60)), Unit: telemetry.UnitCount}}
	if oldest, err := h.Room.Oldest(ctx, key, 1); err == nil {
		var age time.Duration
		if len(oldest) > 0 {
			age = max(h.Now().Sub(oldest[0].EnteredAt), 0)
		}
		gauges = append(gauges, telemetry.Gauge{Name: telemetry.OldestWaitingSeconds, Value: int64(age / time.Second), Unit: telemetry.UnitSeconds})
	} else {
		h.Logger.WarnContext(ctx, "could not read the room's oldest entry for its metric", "breaker", key, "error", err.Error())
	}
	every := max(int(depthEvery/max(tick, time.Millisecond)), 1)
	if (out.Ticks-1)%every == 0 {
		if n, err := h.Room.Depth(ctx, key); err == nil {
			gauges = append(gauges, telemetry.Gauge{Name: telemetry.RoomDepth, Value: int64(n), Unit: telemetry.UnitCount})
		} else {
			h.Logger.WarnContext(ctx, "could not count the room for its metric", "breaker", key, "error", err.Error())
		}
	}
	h.Metrics.Gauges(key, gauges...)
}
