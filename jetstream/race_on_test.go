//go:build race

package jetstream

// raceEnabled shrinks the largest inputs: the race detector slows code ~10×.
const raceEnabled = true
