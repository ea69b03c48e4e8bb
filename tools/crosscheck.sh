#!/usr/bin/env bash
# Keeps the other systems building, so that a file for one system cannot
# silently break another: cmd/braid cross-compiled for Windows with
# mingw-w64 (the window and the headless command line), and for macOS the
# packages that need no cgo (the queue's SQLite and the window need Apple's
# SDK there) built, and vetted with their tests where those need no cgo
# either. Run by make test; GOFLAGS carries the build tags.
set -euo pipefail
go=${GO:-go}

win=(env GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc)
"${win[@]}" "$go" build -o /dev/null ./cmd/braid
"${win[@]}" "$go" build -tags=nosqlite,disable_libutp,headless -o /dev/null ./cmd/braid

mac=(env GOOS=darwin GOARCH=arm64 CGO_ENABLED=0)
# "pkg [pkg.test]|deps": the packages, and their test builds, that need cgo.
needs_cgo='mattn/go-sqlite3|fyne\.io/fyne'
list() { "${mac[@]}" "$go" list -e "$@" -f '{{.ImportPath}}|{{join .Deps " "}}' ./...; }
build=$(list | awk -F'|' -v re="$needs_cgo" '$2 !~ re {print $1}')
# With -test, a package's test builds are listed as "pkg [pkg.test]",
# "pkg_test [pkg.test]" and "pkg.test": all count for pkg.
vet=$(list -test | awk -F'|' -v re="$needs_cgo" '{split($1, p, " "); x = p[1]; sub(/(_test|\.test)$/, "", x)
	if ($2 ~ re) bad[x] = 1; else all[x] = 1} END {for (x in all) if (!bad[x]) print x}' | sort)
"${mac[@]}" "$go" build $build
"${mac[@]}" "$go" vet $vet
echo "crosscheck: Windows builds; macOS builds $(echo $build | wc -w) packages and vets $(echo $vet | wc -w)"
