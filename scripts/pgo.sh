#!/usr/bin/env bash
# pgo.sh: refresh the profile the worker and the publisher are built with
# (profile-guided optimization: go build reads default.pgo in a main
# package's directory). The profile merges the in-process pipeline
# benchmarks (logs, JSON, JSON lines, 64 KiB log documents) with a worker's
# CPU profile from a fused fleet run, so the NATS client's paths count too.
#
#   scripts/pgo.sh [-t BENCHTIME]
#
# Run it on an idle machine after a change to the hot path; commit both
# files. Needs ../shared/corpus for representative documents.
set -euo pipefail
benchtime=3s
while getopts t: opt; do
  case $opt in
    t) benchtime=$OPTARG ;; *) echo "usage: $0 [-t BENCHTIME]" >&2; exit 2 ;;
  esac
done
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
GOMAXPROCS=1 go test -run '^$' -bench 'PipelineLog64KiB$|PipelineLog$|PipelineJSON$|PipelineJSONLines$' \
  -benchtime "$benchtime" -cpuprofile "$work/bench.pprof" -o "$work/pipeline.test" ./pipeline >/dev/null
mkdir "$work/fleet"
go run ./cmd/fleetbench -only c -rounds 1 -latency-docs 0 -worker-cpuprofile "$work/fleet" >/dev/null
go tool pprof -proto "$work/bench.pprof" "$work"/fleet/*.pprof >"$work/merged.pprof" 2>/dev/null
for main in cmd/worker cmd/publisher; do
  cp "$work/merged.pprof" "$main/default.pgo"
done
echo "wrote cmd/worker/default.pgo and cmd/publisher/default.pgo ($(wc -c <"$work/merged.pprof") bytes)"
