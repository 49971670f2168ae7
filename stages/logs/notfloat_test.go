package logs

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkNotFloat: what notFloat rejects ParseFloat rejects too, and
// quantity reads the value as the reference does.
func checkNotFloat(t *testing.T, s string) {
	t.Helper()
	if _, err := strconv.ParseFloat(s, 64); notFloat(s) && err == nil {
		t.Fatalf("notFloat(%q) but ParseFloat reads it", s)
	}
	checkQuantity(t, s)
}

// TestNotFloatParseFloat holds notFloat to ParseFloat on values a log
// holds (addresses, clocks, dates, hex, exponents, infinities) and on
// random strings of the bytes a float may hold and a few others.
func TestNotFloatParseFloat(t *testing.T) {
	for _, s := range []string{"10.0.0.85", "10.0.0.85:50010", "10:00:01", "2024-03-01", "1e+5", "1E-5",
		"-1e5", "+1.5", "0x1p-2", "0x1.8P+3", "0X1p4", "inf", "-Inf", "+infinity", "NaN", "1_000",
		"0x_1p0", ".5", "5.", "-.5", "1.2.3", "1-2", "1+2", "e+1", "--1", "-", "+", "", "1e", "1e+",
		"12ms", "4.5MB", "98%", "1/2", "1,5", "0b101", "0o17", "1p+2"} {
		checkNotFloat(t, s)
	}
	const bytes = "0123456789.+-eEpPxXiInNfFaA_ :/,"
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 300000; n++ {
		b := make([]byte, 1+r.IntN(10))
		for i := range b {
			b[i] = bytes[r.IntN(len(bytes))]
		}
		checkNotFloat(t, string(b))
	}
}

func FuzzNotFloatParseFloat(f *testing.F) {
	f.Add("10.0.0.85:50010")
	f.Add("0x1.8p-3")
	f.Add("-1e+5ms")
	f.Fuzz(func(t *testing.T, s string) { checkNotFloat(t, s) })
}
