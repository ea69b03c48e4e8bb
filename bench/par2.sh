#!/usr/bin/env bash
# bench/par2.sh: `braid repair --par2` beside par2cmdline's `par2 repair`,
# on the same file, the same parity set and the same damage.
#
#   [SET_BY=par2|braid] bench/par2.sh [SIZE_MB] [PERCENT] [DAMAGE_PERCENT]
#   (defaults: par2, 1024, 5, 1)
#
# It builds braid, writes SIZE_MB of random data, makes a PAR2 set of
# PERCENT redundancy (2000 slices, par2cmdline's default) with par2cmdline,
# or with `braid make --parity` when SET_BY=braid (either takes minutes
# to make a 1 GiB set on a small machine), then for
# each tool: copies the good file, flips one byte in DAMAGE_PERCENT of the
# slices (spread over the file), and times the repair with /usr/bin/time -v
# (wall clock and peak RSS). Each repair must leave the exact original bytes.
#
# The work is the same: check every slice, solve for the damaged ones from
# as many recovery slices (one pass over the file), write them. braid
# writes the rebuilt slices in place; par2cmdline writes a repaired copy
# and keeps the damaged file as NAME.1, so it writes the whole file once.
set -euo pipefail

size_mb=${1:-1024}
percent=${2:-5}
damage_pct=${3:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/braid-bench-par2.XXXXXX")
trap 'rm -rf "$work"' EXIT

command -v par2 >/dev/null || { echo "bench/par2.sh: par2 (par2cmdline) is not installed (tools/setup.sh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/par2.sh: /usr/bin/time (GNU time) is not installed" >&2; exit 1; }

export GOFLAGS=-tags=nosqlite,disable_libutp,headless
(cd "$root" && go build -o "$work/braid" ./cmd/braid)

good="$work/good.bin"
echo "writing ${size_mb} MB of random data..." >&2
head -c "$((size_mb << 20))" /dev/urandom >"$good"
mkdir -p "$work/set"
cp "$good" "$work/set/big.bin"
if [ "${SET_BY:-par2}" = braid ]; then
	echo "making a ${percent}% parity set with braid make --parity..." >&2
	/usr/bin/time -f "braid make --parity: %e s, %M KiB peak" "$work/braid" make --parity "$percent%" "$work/set/big.bin" >/dev/null
else
	echo "making a ${percent}% parity set with par2cmdline..." >&2
	/usr/bin/time -f "par2 create: %e s, %M KiB peak" par2 create -q -q -r"$percent" -b2000 "$work/set/big.bin.par2" "$work/set/big.bin" >&2
fi
rm "$work/set/big.bin"
slice=$("$work/braid" verify --par2 "$work/set/big.bin.par2" "$good" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["par2"]["slice_size"])')
slices=$(((size_mb << 20) / slice))
ndamaged=$((slices * damage_pct / 100))
echo "slice size $slice bytes, $slices slices, damaging $ndamaged" >&2

# damage DIR: a fresh copy of the good file and the set in DIR, with one
# byte flipped in each of ndamaged slices spread over the file.
damage() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$good" "$1/big.bin"
	cp "$work"/set/*.par2 "$1/"
	python3 - "$1/big.bin" "$slice" "$slices" "$ndamaged" <<'PY'
import sys
path, slice, slices, n = sys.argv[1], *map(int, sys.argv[2:])
with open(path, "r+b") as f:
    for i in range(n):
        off = (i * slices // n) * slice + 7
        f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0xFF]))
PY
	cat "$1"/* >/dev/null # warm the page cache, as for the other side
}

run() { # name dir command...
	local name=$1 dir=$2
	shift 2
	/usr/bin/time -v -o "$work/$name.time" "$@" >"$work/$name.out" 2>&1 || {
		echo "$name failed:" >&2
		cat "$work/$name.out" >&2
		exit 1
	}
	cmp -s "$good" "$dir/big.bin" || { echo "$name: the repaired file differs from the original" >&2; exit 1; }
	local wall rss
	wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$work/$name.time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$name.time")
	printf '%-22s %10s  %8d MiB peak RSS\n' "$name" "$wall" "$((rss / 1024))"
}

echo "repair of ${size_mb} MiB, ${percent}% parity, ${damage_pct}% of the slices damaged ($ndamaged of $slices):"
damage "$work/b"
run "braid repair --par2" "$work/b" "$work/braid" repair --par2 "$work/b/big.bin.par2"
damage "$work/p"
run "par2 repair" "$work/p" par2 repair -q "$work/p/big.bin.par2"
