//go:build !unix

package jetstream

import "time"

// processCPU is unknown here: the benchmark reports no CPU time.
func processCPU() time.Duration { return 0 }
