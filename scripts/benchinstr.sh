#!/usr/bin/env bash
# benchinstr.sh: instructions per benchmark op, counted by valgrind
# (cachegrind), for a box too loaded for wall-clock figures. The count is
# the difference between runs of N1 and N2 iterations, so set-up is left
# out. The collector is off (GOGC=off unless set): where it ran moved
# the count by 3-5% between runs; without it runs agree to about 0.3%.
#
#   scripts/benchinstr.sh [-p PKG] [-b REGEX] [-1 N1] [-2 N2] [REV]
#
# REV (a git revision; default: the working tree) is built as a test binary
# of PKG (default ./pipeline) and run from this tree's package directory.
# Defaults: -b 'PipelineLog64KiB', -1 20, -2 60. Needs valgrind.
set -euo pipefail
pkg=./pipeline bench=PipelineLog64KiB n1=20 n2=60
while getopts p:b:1:2: opt; do
  case $opt in
    p) pkg=$OPTARG ;; b) bench=$OPTARG ;; 1) n1=$OPTARG ;; 2) n2=$OPTARG ;;
    *) echo "usage: $0 [-p PKG] [-b REGEX] [-1 N1] [-2 N2] [REV]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -gt 1 ]; then
  # getopts stops at REV: options after it would be silently ignored.
  echo "$0: options go before REV (got: $*)" >&2; exit 2
fi
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
src=$root
if [ $# -ge 1 ]; then
  git -C "$root" worktree add --detach -q "$work/src" "$1"
  src=$work/src
fi
(cd "$src" && go test -c -o "$work/bench.test" "$pkg")
cd "$root/${pkg#./}"
count() {
  # Asynchronous preemption signals upset valgrind, and so does RDTSCP (the
  # runtime times lock waits with it: SIGILL); GOMAXPROCS=1 keeps the
  # count per core.
  # GOGC=off unless set: when the collector runs moves the count by 3-5%.
  GOGC=${GOGC:-off} GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$work/bench.test" -test.run '^$' -test.bench "$bench" -test.benchtime "${1}x" 2>&1 |
    sed -n 's/.*I *refs: *//p' | tr -d ','
}
a=$(count "$n1")
b=$(count "$n2")
echo "$bench: $(( (b - a) / (n2 - n1) )) instructions/op (${1:-working tree})"
