package sfnapi

import (
	"strconv"
	"time"
)

// epochTime marshals a time as AWS JSON 1.0 does: epoch seconds, with
// milliseconds as the fraction.
type epochTime time.Time

func (t epochTime) MarshalJSON() ([]byte, error) {
	ms := time.Time(t).UnixMilli()
	return strconv.AppendFloat(nil, float64(ms)/1000, 'f', -1, 64), nil
}

// optionalTime is t as an epochTime, or nil (omitted) when t is zero.
func optionalTime(t time.Time) *epochTime {
	if t.IsZero() {
		return nil
	}
	et := epochTime(t)
	return &et
}

// time is t as a client reads it back: to the millisecond.
func (t epochTime) time() time.Time { return time.UnixMilli(time.Time(t).UnixMilli()) }
