//go:build !unix

package main

import "time"

// freshPageCost is not measured off unix: 0.
func freshPageCost() time.Duration { return 0 }
