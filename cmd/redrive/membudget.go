package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// memoryShare is the share of the machine's memory a run may use by
// default (-max-memory).
const memoryShare = 0.75

// memoryPoll is how often the budget is checked.
const memoryPoll = 200 * time.Millisecond

// gcWindow is how long the garbage collector may spend most of the CPU
// time near the budget before the run is stopped: it would crawl on
// rather than finish.
const gcWindow = 5 * time.Second

// gcShareLimit is the share of CPU time the collector may take near the
// budget over gcWindow.
const gcShareLimit = 0.5

// errOverBudget is why a run stopped for its memory budget: the
// cancellation cause of its context. gcShare is set when the run was
// stopped near the budget because the collector took most of the time.
type errOverBudget struct {
	used, budget uint64
	gcShare      float64
}

func (e *errOverBudget) Error() string {
	msg := fmt.Sprintf("the run was about to use more memory than its budget: %s in use, -max-memory %s",
		formatBytes(e.used), formatBytes(e.budget))
	if e.gcShare > 0 {
		msg += fmt.Sprintf(", the garbage collector taking %.0f%% of the time to stay under it", 100*e.gcShare)
	}
	return msg
}

// parseBytes reads a size such as "6GB", "1.5GiB", "800MB" or "1073741824":
// KB, MB, GB and TB (or KiB, MiB, GiB, TiB) are powers of 1024, as
// /usr/bin/time and free count them.
func parseBytes(s string) (uint64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := 1.0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			t, mult = strings.TrimSpace(t[:n-1]), float64(uint64(1)<<(10*(i+1)))
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("-max-memory %q: want a positive size such as 6GB or 1500MB", s)
	}
	return uint64(n * mult), nil
}

// formatBytes writes a size in GiB or MiB.
func formatBytes(n uint64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MB", n>>20)
}

// machineMemory is the memory this process may have: the cgroup's limit
// if it sets one, else the machine's; 0 when neither can be read.
func machineMemory() uint64 {
	total := uint64(0)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				if kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
		_ = f.Close() // read-only
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && (total == 0 || limit < total) {
			total = limit
		}
	}
	return total
}

// memoryBudget is the budget -max-memory sets, or by default memoryShare
// of the machine's memory; 0 means none.
func memoryBudget(flag string) (uint64, error) {
	if flag != "" {
		return parseBytes(flag)
	}
	return uint64(float64(machineMemory()) * memoryShare), nil
}

// processMemory is the memory the Go runtime holds from the system,
// less what it has released: close to the resident set.
func processMemory() uint64 {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(samples)
	total, released := samples[0].Value.Uint64(), samples[1].Value.Uint64()
	return total - min(released, total)
}

// cpuTimes reads the CPU time the garbage collector and the whole
// process have used so far, in seconds.
func cpuTimes() (gc, total float64) {
	samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(samples)
	return samples[0].Value.Float64(), samples[1].Value.Float64()
}

// gcMeter measures the collector's share of CPU time over the last
// gcWindow.
type gcMeter struct {
	marks []gcMark
}

// gcMark is the CPU times at a wall time.
type gcMark struct {
	at        time.Time
	gc, total float64
}

// share records the times at now and returns the collector's share
// since the oldest mark within gcWindow, once a whole window is covered.
func (m *gcMeter) share(now time.Time) (float64, bool) {
	gc, total := cpuTimes()
	m.marks = append(m.marks, gcMark{at: now, gc: gc, total: total})
	for len(m.marks) > 1 && now.Sub(m.marks[1].at) >= gcWindow {
		m.marks = m.marks[1:]
	}
	first := m.marks[0]
	if now.Sub(first.at) < gcWindow || total <= first.total {
		return 0, false
	}
	return (gc - first.gc) / (total - first.total), true
}

// withMemoryBudget returns a context that is cancelled, with an
// *errOverBudget cause, once the process holds more than budget, or holds
// more than 85% of it while the garbage collector has taken more than
// half the CPU time for gcWindow (the run would crawl on, collecting, to
// stay under it); it also sets the collector's soft limit at 90% of the
// budget, so that the heap is collected harder before the run is
// stopped. A zero budget watches nothing. Call stop when the run is over.
func withMemoryBudget(ctx context.Context, budget uint64) (_ context.Context, stop func()) {
	if budget == 0 {
		return ctx, func() {}
	}
	previous := debug.SetMemoryLimit(int64(budget / 10 * 9))
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	if used := processMemory(); used > budget {
		cancel(&errOverBudget{used: used, budget: budget})
	}
	go func() {
		t := time.NewTicker(memoryPoll)
		defer t.Stop()
		var meter gcMeter
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				used := processMemory()
				share, measured := meter.share(now)
				switch {
				case used > budget:
					cancel(&errOverBudget{used: used, budget: budget})
					return
				case used > budget/100*85 && measured && share > gcShareLimit:
					cancel(&errOverBudget{used: used, budget: budget, gcShare: share})
					return
				}
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
		debug.SetMemoryLimit(previous)
	}
}

// overBudget reports the budget that stopped ctx's run, if one did.
func overBudget(ctx context.Context) (*errOverBudget, bool) {
	return errors.AsType[*errOverBudget](context.Cause(ctx))
}
