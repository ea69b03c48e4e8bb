#!/usr/bin/env bash
# bench/verify.sh: how fast `braid verify` checks a file, next to sha256sum
# and aria2c -V on the same file, from a warm page cache.
#
#   bench/verify.sh [SIZE_MB] [RUNS]      (defaults: 1024 MB, best of 3)
#
# It builds braid, writes SIZE_MB of random data, describes it with
# `braid make --piece-length 1M` (sha-256 pieces and whole-file sha-256),
# reads the file twice to warm the cache, then times each tool RUNS times and
# prints the best run of each in GB/s (10^9 bytes per second). Best of
# several, because on a shared machine a slow run says more about the
# neighbours than about the tool.
#
# What each tool computes differs, and the table says so:
#   braid verify        sha-256 of every piece; they cover the whole-file
#                       sha-256, which is then skipped: the same work as
#                       aria2c -V
#   braid verify --full sha-256 of every piece AND the whole-file sha-256
#   sha256sum           the whole-file sha-256 only
#   aria2c -V           sha-256 of every piece (aria2 ignores the whole-file
#                       hash when piece hashes are present)
set -euo pipefail

size_mb=${1:-1024}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/braid-bench-verify.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The command line as the Makefile builds it (see Makefile).
export GOFLAGS=-tags=nosqlite,disable_libutp,headless
(cd "$root" && go build -o "$work/braid" ./cmd/braid)

mkdir -p "$work/data"
file="$work/data/big.bin"
echo "writing ${size_mb} MB of random data..." >&2
head -c "$((size_mb << 20))" /dev/urandom >"$file"
bytes=$(stat -c %s "$file")

# A loopback URL on the discard port: the metalink needs a mirror for
# aria2c, which never contacts it with --hash-check-only.
"$work/braid" make --piece-length 1M --url http://127.0.0.1:9 "$file" >"$work/full.meta4"

cat "$file" >/dev/null
cat "$file" >/dev/null

# best_of CMD...: runs CMD $runs times (it must succeed) and prints the
# fastest run's wall-clock seconds and the CPU seconds (user + system) it
# used. CPU seconds hardly change with the load of a shared machine; wall
# seconds do.
best_of() {
	local best="" cpu="" t real user sys
	for _ in $(seq "$runs"); do
		rm -f "$file.aria2"
		t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>"$work/err"; } 2>&1 ) ||
			{ echo "bench/verify.sh: $* failed:" >&2; cat "$work/err" >&2; exit 1; }
		read -r real user sys <<<"$t"
		if [ -z "$best" ] || [ "$(echo "$real < $best" | bc -l)" = 1 ]; then
			best=$real
			cpu=$(echo "$user + $sys" | bc -l)
		fi
	done
	echo "$best $cpu"
}

aria() {
	aria2c -V --hash-check-only=true --console-log-level=warn --summary-interval=0 \
		--file-allocation=none --auto-file-renaming=false -M "$1" -d "$work/data"
}

t_braid=$(best_of "$work/braid" verify --metalink "$work/full.meta4" -d "$work/data")
t_full=$(best_of "$work/braid" verify --full --metalink "$work/full.meta4" -d "$work/data")
t_sum=$(best_of sha256sum "$file")
t_aria=$(best_of aria "$work/full.meta4")

sha_ni=$(grep -o -m1 -w sha_ni /proc/cpuinfo || echo "no sha_ni")
printf '%d bytes, 1 MiB sha-256 pieces, warm cache, %s cores (%s), best of %d, load %s\n' \
	"$bytes" "$(nproc)" "$sha_ni" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %-31s %8s %6s %8s\n' tool hashes seconds GB/s cpu-s
row() {
	local real cpu
	read -r real cpu <<<"$3"
	printf '%-22s %-31s %8.3f %6.2f %8.2f\n' "$1" "$2" "$real" "$(echo "$bytes / $real / 1000000000" | bc -l)" "$cpu"
}
row "braid verify" "sha-256 pieces (cover whole)" "$t_braid"
row "braid verify --full" "sha-256 pieces + whole sha-256" "$t_full"
row "sha256sum" "whole sha-256" "$t_sum"
row "aria2c -V" "sha-256 pieces" "$t_aria"
