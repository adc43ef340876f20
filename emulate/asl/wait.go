package asl

import (
	"fmt"
	"time"
)

// waitSpec is a Wait state's duration: exactly one field is set.
type waitSpec struct {
	seconds       int64
	hasSeconds    bool
	secondsPath   *path
	timestamp     time.Time
	hasTimestamp  bool
	timestampPath *path
}

// compileWait reads exactly one of Seconds, SecondsPath, Timestamp and
// TimestampPath.
func (st *State) compileWait(f *fields) error {
	w := &waitSpec{}
	set := 0
	secs, ok, err := f.integer("Seconds", 0, maxTimeoutSeconds)
	if err != nil {
		return err
	}
	if ok {
		w.seconds, w.hasSeconds = secs, true
		set++
	}
	if ts, err := f.str("Timestamp", false); err != nil {
		return err
	} else if _, present := f.obj["Timestamp"]; present {
		t, err := parseTimestamp(ts)
		if err != nil {
			return f.err("Timestamp", "%v", err)
		}
		w.timestamp, w.hasTimestamp = t, true
		set++
	}
	for _, name := range []string{"SecondsPath", "TimestampPath"} {
		p, null, err := f.path(name)
		if err != nil {
			return err
		}
		if null {
			return f.err(name, "must be a path, not null")
		}
		if p != nil {
			set++
			if name == "SecondsPath" {
				w.secondsPath = p
			} else {
				w.timestampPath = p
			}
		}
	}
	if set != 1 {
		return f.err("Seconds", "a Wait state needs exactly one of Seconds, SecondsPath, Timestamp and TimestampPath, got %d", set)
	}
	st.wait = w
	return nil
}

// WaitUntil is when a Wait state that starts waiting at now, with the
// effective input (after InputPath) and the context object, is over.
func (st *State) WaitUntil(input, ctxObj any, now time.Time) (time.Time, error) {
	w := st.wait
	switch {
	case w.hasSeconds:
		return now.Add(time.Duration(w.seconds) * time.Second), nil
	case w.hasTimestamp:
		return w.timestamp, nil
	case w.secondsPath != nil:
		v, err := w.secondsPath.get(input, ctxObj)
		if err != nil {
			return time.Time{}, err
		}
		secs, ok := integerValue(v)
		if !ok || secs < 0 || secs > maxTimeoutSeconds {
			return time.Time{}, RuntimeErrorf("The SecondsPath parameter does not reference a valid non-negative integer: %s", jsonText(v))
		}
		return now.Add(time.Duration(secs) * time.Second), nil
	default:
		v, err := w.timestampPath.get(input, ctxObj)
		if err != nil {
			return time.Time{}, err
		}
		s, _ := v.(string)
		t, perr := parseTimestamp(s)
		if perr != nil {
			return time.Time{}, RuntimeErrorf("The TimestampPath parameter does not reference a valid ISO-8601 extended offset date-time format string: %s", jsonText(v))
		}
		return t, nil
	}
}

// parseTimestamp parses an ASL timestamp: RFC 3339 with an uppercase T and,
// without an offset, an uppercase Z.
func parseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 timestamp such as 2026-01-01T00:00:00Z", s)
	}
	return t, nil
}
