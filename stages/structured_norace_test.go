//go:build !race

package stages

// raceDetector reports whether the tests run under the race detector.
const raceDetector = false
