package breaker

import (
	"encoding/hex"
	"math/rand/v2"
	"sync"
)

// Random is the randomness the pure functions take: jitter and lease IDs. *rand.Rand from math/rand/v2 satisfies it; inject a seeded
// one to make decisions reproducible.
type Random interface {
	// Float64 returns a number in [0, 1).
	Float64() float64
	// Uint64 returns 64 random bits.
	Uint64() uint64
}

// lockedRandom makes a *rand.Rand safe for concurrent use.
type lockedRandom struct {
	mu sync.Mutex
	r  *rand.Rand
}

// NewRandom returns a seeded Random that is safe for concurrent use, the
// kind a Breaker needs. The same seed yields the same sequence.
func NewRandom(seed uint64) Random {
	return &lockedRandom{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (l *lockedRandom) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}

func (l *lockedRandom) Uint64() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Uint64()
}

// newLeaseID returns 64 random bits as 16 hex digits: unique enough among
// the few leases of one breaker generation.
func newLeaseID(rnd Random) string {
	v := rnd.Uint64()
	var b [8]byte
	for i := range b {
		b[i] = byte(v >> (56 - 8*i))
	}
	return hex.EncodeToString(b[:])
}
