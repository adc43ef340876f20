package executor

import (
	"bufio"
	"bytes"
	"context"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ownGoroutines labels the calling test's goroutine with a pprof label
// unique to t, which every goroutine it starts from now on inherits (and
// every goroutine those start), and returns a count of the running
// goroutines that carry it. A test counts what it owns: goroutines left
// by other tests, or by the testing package, never change its count.
func ownGoroutines(t *testing.T) func() int {
	t.Helper()
	value := t.Name()
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(ownerLabel, value)))
	t.Cleanup(func() { pprof.SetGoroutineLabels(context.Background()) })
	want := "# labels: {" + strconv.Quote(ownerLabel) + ":" + strconv.Quote(value) + "}"
	return func() int { return labelledGoroutines(t, want) }
}

// ownerLabel is the pprof label ownGoroutines sets.
const ownerLabel = "redrive-test-owner"

// labelledGoroutines counts the running goroutines whose labels line (in
// the goroutine profile's debug=1 form) is want.
func labelledGoroutines(t *testing.T, want string) int {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatalf("goroutine profile: %v", err)
	}
	n, count := 0, 0
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if head, _, ok := strings.Cut(line, " @ "); ok && !strings.HasPrefix(line, "#") {
			count, _ = strconv.Atoi(head)
			continue
		}
		if line == want {
			n += count
		}
	}
	return n
}

// goroutinesBackTo waits until no more than n of the goroutines count
// counts are running. It polls on the test's own goroutine (testify's
// Eventually runs its condition on goroutines of its own) and allows a
// loaded machine long to end them: only a goroutine that never ends fails.
func goroutinesBackTo(t *testing.T, count func() int, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for count() > n {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of this test are running, %d before", count(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
