#!/usr/bin/env bash
# Runs Braid's tests on Windows: each package's test binary is
# cross-compiled for windows/amd64 with mingw-w64 (cgo, so the queue's SQLite
# is the real one) and run under Debian's Wine, from its package folder so
# that testdata is found. Run by make test; GOFLAGS carries the build tags.
#
#   tools/wintest.sh              every package that meets the system
#   tools/wintest.sh PKG...       those packages (./engine, ./queue, ...)
#   WINTEST_RUN=REGEXP            only the tests that match (-test.run)
#   WINTEST_COUNT=N               run each test N times (-test.count)
#   WINTEST_PARALLEL=N            run up to N tests side by side (default 4)
#
# Wine 8 differs from Windows 10 in two ways that the test binaries meet, and
# both are bridged here, never in what ships:
#   - Go's runtime loads ProcessPrng from bcryptprimitives.dll, which Wine 8
#     lacks: tools/wine/processprng.c is a stand-in, built with mingw-w64
#     into the prefix's System32.
#   - Wine 8 answers STATUS_NOT_IMPLEMENTED for FileDispositionInformationEx,
#     and Go's Deleteat (os.Root.Remove, os.RemoveAll, t.TempDir's clean-up)
#     falls back to the older call only for three other statuses. The test
#     binaries are built with an -overlay of the standard library's
#     at_windows.go that also falls back on that one. Braid itself handles
#     the status (engine's removal falls back to DeleteFile), since people
#     run Windows programs under Wine too.
# Wine 8 also has no AF_UNIX sockets; Braid uses named pipes on Windows.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
# The Makefile sets the build tags; run alone, the script needs them too.
export GOFLAGS=${GOFLAGS:--tags=nosqlite,disable_libutp}

wine=$(command -v wine64 || true)
[ -z "$wine" ] && [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64
wineserver=$(command -v wineserver || true)
[ -z "$wineserver" ] && [ -x /usr/lib/wine/wineserver ] && wineserver=/usr/lib/wine/wineserver
if [ -z "$wine" ] || [ -z "$wineserver" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
	echo "wintest: wine64 and gcc-mingw-w64-x86-64 are needed (make setup installs them)" >&2
	exit 1
fi

# The packages whose tests meet the system: files, paths, sockets and pipes,
# processes, the registry, SQLite, and the command line itself. Packages
# whose tests seed torrents rerun their test binary with the seeders' files
# not memory-mapped (torrenttest.RerunWithClassicIO): Windows deletes no
# mapped file, and the tests' temporary folders could not be removed.
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./engine/metalink ./engine ./engine/rootfile ./engine/explain ./engine/piece ./engine/resolve ./engine/transport ./engine/netconf
	./engine/source ./engine/torrent ./engine/resourcesync ./engine/signature ./queue ./runner ./platform ./rpc
	./nativehost ./ui/bridge ./cmd/braid)

work=$(mktemp -d "${TMPDIR:-/tmp}/braid-wine.XXXXXX")
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# Wine links the Windows user's Desktop, Documents, Downloads... to $HOME:
# a test that writes there (Braid's default download folder is Downloads)
# would write into the real home. Wine gets a home of its own; Go keeps the
# real one, where its caches are.
mkdir -p "$work/home"
wine=(env HOME="$work/home" "$wine")
cleanup() {
	# Under set -e a failing last command here would become the script's
	# exit status: the builder has usually finished, and kill then fails.
	if [ -n "${builder:-}" ]; then kill "$builder" 2>/dev/null || true; fi
	HOME="$work/home" "$wineserver" -k 2>/dev/null || true
	rm -rf "$work" 2>/dev/null || true
}
trap cleanup EXIT

# The standard library's Deleteat, falling back on STATUS_NOT_IMPLEMENTED too.
goroot=$("$go" env GOROOT)
at=$goroot/src/internal/syscall/windows/at_windows.go
mkdir -p "$work/overlay"
sed 's|^\(\t\t\)STATUS_NOT_SUPPORTED: |\1STATUS_NOT_SUPPORTED, NTStatus(0xC0000002) /* Wine 8: STATUS_NOT_IMPLEMENTED */: |' "$at" >"$work/overlay/at_windows.go"
if cmp -s "$at" "$work/overlay/at_windows.go"; then
	echo "wintest: $at no longer has the line this script patches; update tools/wintest.sh for Go $("$go" env GOVERSION)" >&2
	exit 1
fi
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$work/overlay/at_windows.go" >"$work/overlay/overlay.json"

echo "wintest: making a Wine prefix"
"${wine[@]}" wineboot -i >/dev/null 2>&1
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
	tools/wine/processprng.c tools/wine/processprng.def -ladvapi32

win=(env GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc)
mkdir -p "$work/bin"
# The test binaries are built one after another in the background while
# those built before them run: a Wine run mostly waits (on servers, timers
# and Wine itself), so the next package compiles meanwhile instead of
# after it. $work/NAME.built holds a build's exit status and seconds.
(
	for p in "${pkgs[@]}"; do
		name=$(echo "${p#./}" | tr / _)
		start=$SECONDS rc=0
		"${win[@]}" "$go" test -overlay="$work/overlay/overlay.json" -c -o "$work/bin/$name.test.exe" "$p" \
			>"$work/$name.build" 2>&1 || rc=$?
		echo "$rc $((SECONDS - start))" >"$work/$name.built.tmp"
		mv "$work/$name.built.tmp" "$work/$name.built"
		[ "$rc" -eq 0 ] || exit 1
	done
) &
builder=$!
status=0
for p in "${pkgs[@]}"; do
	name=$(echo "${p#./}" | tr / _)
	exe=$work/bin/$name.test.exe
	while [ ! -e "$work/$name.built" ]; do
		kill -0 "$builder" 2>/dev/null || break
		sleep 0.2
	done
	read -r rc built <"$work/$name.built" 2>/dev/null || { rc=1 built=0; }
	cat "$work/$name.build" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		echo "wintest: building the tests of $p failed" >&2
		exit 1
	fi
	[ -e "$exe" ] || continue # no tests
	ran=$SECONDS
	# Up to 4 tests side by side, as make test runs them on Linux: the
	# Windows run takes under half the time it took one test at a time
	# (338 and 448 s against 882 s on a busy two-core machine, every test
	# passing each time). One
	# at a time, WINTEST_PARALLEL=1, is the way to tell a test that fails
	# only beside others (an anacrolix seeder once stopped serving a
	# request it had taken, side by side under Wine).
	args=(-test.v=test2json -test.count="${WINTEST_COUNT:-1}" -test.timeout=10m -test.parallel="${WINTEST_PARALLEL:-4}")
	[ -n "${WINTEST_RUN:-}" ] && args+=(-test.run="$WINTEST_RUN")
	# The output goes to a file, not a pipe: Wine's service processes may
	# inherit the pipe and hold it open after the test binary ends.
	# test2json then turns the binary's -test.v output into events.
	(cd "$p" && timeout 660 "${wine[@]}" "$exe" "${args[@]}" >"$work/$name.out" 2>&1) || true
	"$go" tool test2json -p "windows/${p#./}" <"$work/$name.out" >"$work/$name.json" || true
	if ! tools/wintest-summary.sh "$work/$name.json"; then
		status=1
	fi
	echo "    (built in $built s; ran in $((SECONDS - ran)) s)"
done
tools/wintest-summary.sh --total "$work"/*.json || status=1
exit $status
