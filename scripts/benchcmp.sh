#!/usr/bin/env bash
# benchcmp.sh: compare benchmarks of two revisions with benchstat, runs
# interleaved (old, new, old, new, ...) so a slow spell of a shared machine
# falls on both sides.
#
#   scripts/benchcmp.sh [-n COUNT] [-b REGEX] [-p PKG] [-t BENCHTIME] [-P] OLD [NEW]
#
# OLD and NEW are git revisions; NEW defaults to the working tree. Defaults:
# -n 5, -b 'Pipeline' (the in-process pipeline benchmarks), -p ./pipeline,
# -t 1s. GOMAXPROCS is 1 unless set, so the figures are per core.
# Each side is built as the worker ships: with its revision's
# cmd/worker/default.pgo when it has one (see scripts/pgo.sh); -P builds
# both without profile-guided optimization.
set -euo pipefail
count=5 bench=Pipeline pkg=./pipeline benchtime=1s pgo=yes
usage="usage: $0 [-n COUNT] [-b REGEX] [-p PKG] [-t BENCHTIME] [-P] OLD [NEW]"
while getopts n:b:p:t:P opt; do
  case $opt in
    n) count=$OPTARG ;; b) bench=$OPTARG ;; p) pkg=$OPTARG ;; t) benchtime=$OPTARG ;; P) pgo=no ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/old" >/dev/null 2>&1 || true; git -C "$root" worktree remove --force "$work/new" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# build REV NAME: a test binary of PKG at REV (the working tree when REV is empty).
build() {
  local src=$root
  if [ -n "$1" ]; then
    git -C "$root" worktree add --detach -q "$work/$2" "$1"
    src=$work/$2
  fi
  local profile=off
  if [ "$pgo" = yes ] && [ -f "$src/cmd/worker/default.pgo" ]; then
    profile=$src/cmd/worker/default.pgo
  fi
  (cd "$src" && go test -c -pgo="$profile" -o "$work/$2.test" "$pkg")
}
build "$1" old
build "${2:-}" new

export GOMAXPROCS=${GOMAXPROCS:-1}
for i in $(seq "$count"); do
  for side in old new; do
    # Both run in this tree's package directory: the same inputs (../shared).
    (cd "$root/${pkg#./}" && "$work/$side.test" -test.run '^$' -test.bench "$bench" \
      -test.benchtime "$benchtime" -test.benchmem) | grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$work/$side.txt"
  done
  echo "round $i of $count done" >&2
done
cd "$work" && go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da old.txt new.txt
