package lotindex

import (
	"cmp"
	"iter"
	"slices"
	"time"
)

// Count is how many entries there are and when the oldest was parked.
type Count struct {
	// N counts the entries.
	N int
	// Oldest is the earliest parked time; zero when N is 0.
	Oldest time.Time
}

// add counts an entry parked at.
func (c *Count) add(at time.Time) {
	if c.N == 0 || at.Before(c.Oldest) {
		c.Oldest = at
	}
	c.N++
}

// Group is the entries of one breaker key, reason class and error type.
type Group struct {
	Breaker, Reason, ErrorType string
	Count
}

// Summary counts entries by breaker key, reason class and error type.
type Summary struct {
	// Groups are ordered by breaker key, then reason class, then error
	// type.
	Groups []Group
	// Total counts every entry.
	Total Count
}

// Summarize counts entries; it stops at the first error and returns it.
func Summarize(entries iter.Seq2[Entry, error]) (Summary, error) {
	type key struct{ breaker, reason, errorType string }
	groups := map[key]*Count{}
	var s Summary
	for e, err := range entries {
		if err != nil {
			return Summary{}, err
		}
		k := key{e.Breaker, e.Reason, e.ErrorType}
		if groups[k] == nil {
			groups[k] = &Count{}
		}
		groups[k].add(e.ParkedAt)
		s.Total.add(e.ParkedAt)
	}
	for k, c := range groups {
		s.Groups = append(s.Groups, Group{Breaker: k.breaker, Reason: k.reason, ErrorType: k.errorType, Count: *c})
	}
	slices.SortFunc(s.Groups, func(a, b Group) int {
		return cmp.Or(cmp.Compare(a.Breaker, b.Breaker), cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.ErrorType, b.ErrorType))
	})
	return s, nil
}
