//go:build unix

package main

import (
	"syscall"
	"time"
)

// freshPageCost is how long this machine takes to fault in one fresh 4 KiB
// page: the first write to each page of a 64 MiB anonymous mapping.
// nats-server's file store takes a fresh write buffer for each block (a
// 4 MB one a few documents into it), so this cost, times the buffer's
// pages, is one step of the latency run's tail.
func freshPageCost() time.Duration {
	const size, page = 64 << 20, 4 << 10
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0
	}
	defer func() { _ = syscall.Munmap(b) }()
	start := time.Now()
	for i := 0; i < size; i += page {
		b[i] = 1
	}
	return time.Since(start) / (size / page)
}
