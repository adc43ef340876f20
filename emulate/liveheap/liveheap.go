// Package liveheap measures the live heap, for the tests and benchmarks
// that bound how much memory something keeps.
package liveheap

import "runtime"

// Bytes is the size of the live heap: the bytes of heap objects still
// reachable after two collections (the second drops what sync.Pool's
// victim caches held through the first).
func Bytes() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
