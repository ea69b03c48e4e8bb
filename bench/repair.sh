#!/usr/bin/env bash
# bench/repair.sh: how fast `braid repair` mends a file next to aria2c -V
# doing the same, on the same damage, from the same local nginx mirror.
#
#   bench/repair.sh [SIZE_MB] [RUNS]      (defaults: 256 MB, best of 3)
#
# It builds braid, writes SIZE_MB of random data, serves it with nginx on a
# loopback port, describes it with `braid make --piece-length 1M` (sha-256
# pieces and whole-file sha-256), and then RUNS times for each tool: copies
# the good file, flips 3 bytes in 3 different pieces, warms the page cache,
# and times the repair. Each run must leave the exact original bytes and the
# mirror must have sent no more than the 3 bad pieces (nginx's access log
# says what it sent). It prints the best run of each, and the bytes fetched.
#
# Both tools do the same work: sha-256 of every piece, fetch the 3 bad
# pieces, write them. braid does it in place; aria2c -V too.
set -euo pipefail

size_mb=${1:-256}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/braid-bench-repair.XXXXXX")
nginx_pid=""
cleanup() {
	[ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

command -v nginx >/dev/null || { echo "bench/repair.sh: nginx is not installed (tools/setup.sh bench)" >&2; exit 1; }
command -v aria2c >/dev/null || { echo "bench/repair.sh: aria2c is not installed (tools/setup.sh bench)" >&2; exit 1; }

# The command line as the Makefile builds it (see Makefile).
export GOFLAGS=-tags=nosqlite,disable_libutp,headless
(cd "$root" && go build -o "$work/braid" ./cmd/braid)

mkdir -p "$work/srv" "$work/data" "$work/nginx"
chmod 755 "$work" "$work/srv" # nginx workers read as their own user
good="$work/srv/big.bin"
file="$work/data/big.bin"
echo "writing ${size_mb} MB of random data..." >&2
head -c "$((size_mb << 20))" /dev/urandom >"$good"
bytes=$(stat -c %s "$good")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 64; }
http {
	access_log $work/nginx/access.log;
	client_body_temp_path $work/nginx;
	proxy_temp_path $work/nginx;
	fastcgi_temp_path $work/nginx;
	uwsgi_temp_path $work/nginx;
	scgi_temp_path $work/nginx;
	server {
		listen 127.0.0.1:$port;
		root $work/srv;
	}
}
CONF
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
nginx_pid=$!
for _ in $(seq 50); do
	curl -sfI "http://127.0.0.1:$port/big.bin" >/dev/null 2>&1 && break
	sleep 0.1
done

"$work/braid" make --piece-length 1M --url "http://127.0.0.1:$port/" "$good" >"$work/big.meta4"

# damage: a fresh copy of the good file with one byte flipped in each of
# three pieces (17, the middle one and the last), then a warm cache.
damage() {
	rm -f "$file" "$file.aria2"
	cp "$good" "$file"
	local mib=$((1 << 20)) last=$(((size_mb - 1) << 20)) off
	for off in $((17 * mib)) $((size_mb / 2 * mib + 5)) $((last + mib - 1)); do
		printf '\xff' | dd of="$file" bs=1 seek="$off" conv=notrunc status=none
	done
	cat "$file" >/dev/null
	: >"$work/nginx/access.log.mark"
	wc -l <"$work/nginx/access.log" >"$work/nginx/access.log.mark"
}

# sent: body bytes nginx sent since the last damage.
sent() {
	local from
	from=$(cat "$work/nginx/access.log.mark")
	tail -n +"$((from + 1))" "$work/nginx/access.log" | awk '{ s += $10 } END { print s + 0 }'
}

# best_of NAME CMD...: RUNS times, damage the file and time CMD; each run
# must restore the original and fetch no more than the 3 bad pieces. Prints
# the fastest wall-clock seconds, its CPU seconds and the bytes fetched.
best_of() {
	local best="" cpu="" fetched="" t real user sys n
	for _ in $(seq "$runs"); do
		damage
		t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$work/err" 2>&1; } 2>&1 ) ||
			{ echo "bench/repair.sh: $* failed:" >&2; cat "$work/err" >&2; exit 1; }
		cmp -s "$file" "$good" || { echo "bench/repair.sh: $* left a file that differs from the original" >&2; exit 1; }
		n=$(sent)
		[ "$n" -le $((3 << 20)) ] || { echo "bench/repair.sh: $* fetched $n bytes for 3 bad pieces" >&2; exit 1; }
		read -r real user sys <<<"$t"
		if [ -z "$best" ] || [ "$(echo "$real < $best" | bc -l)" = 1 ]; then
			best=$real
			cpu=$(echo "$user + $sys" | bc -l)
			fetched=$n
		fi
	done
	echo "$best $cpu $fetched"
}

aria() {
	aria2c -V --console-log-level=warn --summary-interval=0 --file-allocation=none \
		--auto-file-renaming=false --allow-overwrite=true -M "$work/big.meta4" -d "$work/data"
}

t_braid=$(best_of "$work/braid" repair --metalink "$work/big.meta4" -d "$work/data")
t_aria=$(best_of aria)

sha_ni=$(grep -o -m1 -w sha_ni /proc/cpuinfo || echo "no sha_ni")
printf '%d bytes, 3 bytes flipped in 3 of %d 1 MiB sha-256 pieces, nginx on loopback, warm cache, %s cores (%s), best of %d, load %s\n' \
	"$bytes" "$size_mb" "$(nproc)" "$sha_ni" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %8s %8s %10s\n' tool seconds cpu-s fetched
row() {
	local real cpu fetched
	read -r real cpu fetched <<<"$2"
	printf '%-14s %8.3f %8.2f %10d\n' "$1" "$real" "$cpu" "$fetched"
}
row "braid repair" "$t_braid"
row "aria2c -V" "$t_aria"
printf 'braid / aria2c: %.2f (below 1: braid is faster)\n' "$(echo "$(cut -d' ' -f1 <<<"$t_braid") / $(cut -d' ' -f1 <<<"$t_aria")" | bc -l)"
