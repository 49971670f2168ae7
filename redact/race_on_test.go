//go:build race

package redact_test

// raceEnabled: timings under the race detector say nothing about the code.
const raceEnabled = true
