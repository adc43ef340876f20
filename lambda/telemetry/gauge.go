package telemetry

// The gauges of a breaker's waiting room, written by its controller once
// per tick (RoomDepth at most once a minute: counting the room reads every
// entry).
const (
	// RoomDepth is how many messages wait in the breaker's room.
	RoomDepth Name = "RoomDepth"
	// OldestWaitingSeconds is how long the first message in the room's
	// line has waited, since it joined the line (a message that entered
	// again after a failed try counts from that try; 0 when the room is
	// empty).
	OldestWaitingSeconds Name = "OldestWaitingSeconds"
	// ReleaseRatePerMinute is the controller's pace after the tick, in
	// messages per minute: the target's capacity as the controller found
	// it, to compare with Released per minute.
	ReleaseRatePerMinute Name = "ReleaseRatePerMinute"
)

// Units of gauge readings.
const (
	UnitCount   = unitCount
	UnitSeconds = "Seconds"
)

// Gauge is one reading of a gauge.
type Gauge struct {
	Name  Name
	Value int64
	// Unit is UnitCount or UnitSeconds.
	Unit string
}

// Gauges writes one line with the readings of breaker key; none writes
// nothing.
func (m *Metrics) Gauges(key string, gauges ...Gauge) {
	if len(gauges) == 0 {
		return
	}
	ms := make([]metric, len(gauges))
	for i, g := range gauges {
		ms[i] = metric{name: string(g.Name), unit: g.Unit, value: g.Value}
	}
	m.emit(key, m.clock.Now(), ms...)
}
