// Package faults is jetcompact's fault-injection suite. It holds tests only.
//
// The tests build the worker command and the upstream nats-server command
// (github.com/nats-io/nats-server/v2, the version in go.mod) and run them as
// real child processes on loopback: each case publishes a known set of
// documents through jetstream.Client while it kills workers and servers with
// SIGKILL, stops workers with SIGSTOP, hangs the LLM endpoint or floods the
// fleet, and then checks the promise: every document comes out exactly once
// (the results stream holds one message per document and received no
// duplicate publish) and equal to what the in-process pipeline gives.
//
// Figures are printed Jepsen style with -v. FAULTS_DOCS sets the number of
// documents per case (default 2000); FAULTS_LOAD_SECONDS sets the length of
// the flood (default 10).
package faults
