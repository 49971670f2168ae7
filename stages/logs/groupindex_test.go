package logs

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// checkGroupIndex feeds keys to a groupIndex and to a map as
// templates.add does (look up, put when absent), and fails where they
// disagree; reset must leave it empty.
func checkGroupIndex(t *testing.T, x *groupIndex, keys []uint64) {
	t.Helper()
	want := map[uint64]int{}
	for _, k := range keys {
		g, ok := x.get(k)
		wg, wok := want[k]
		if ok != wok || g != wg {
			t.Fatalf("get(%#x) = %d, %v; want %d, %v", k, g, ok, wg, wok)
		}
		if !ok {
			want[k] = len(want)
			x.put(k, len(want)-1)
		}
	}
	for k, wg := range want {
		if g, ok := x.get(k); !ok || g != wg {
			t.Fatalf("after all: get(%#x) = %d, %v; want %d", k, g, ok, wg)
		}
	}
	x.reset()
	for k := range want {
		if _, ok := x.get(k); ok {
			t.Fatalf("after reset: %#x still found", k)
		}
	}
}

// TestGroupIndexMatchesMap checks the index against a map on keys that
// repeat, keys 0 and 1, keys equal in their low bits (one probe run) and
// sizes across several growths, reusing one index as the pool does.
func TestGroupIndexMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	var x groupIndex
	for round := range 200 {
		n := 1 + r.IntN(1<<uint(1+round%13))
		pool := make([]uint64, 1+r.IntN(n))
		for i := range pool {
			switch r.IntN(4) {
			case 0:
				pool[i] = uint64(r.IntN(4)) // 0, 1 and their neighbours
			case 1:
				pool[i] = uint64(r.IntN(64)) << 40 // equal low bits
			default:
				pool[i] = r.Uint64()
			}
		}
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = pool[r.IntN(len(pool))]
		}
		checkGroupIndex(t, &x, keys)
	}
}

// FuzzGroupIndexMatchesMap reads the input as keys, eight bytes each.
func FuzzGroupIndexMatchesMap(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("abcdefghabcdefgh12345678abcdefgh"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var keys []uint64
		for ; len(b) >= 8; b = b[8:] {
			keys = append(keys, binary.LittleEndian.Uint64(b))
		}
		var x groupIndex
		checkGroupIndex(t, &x, keys)
	})
}
