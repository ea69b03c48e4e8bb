# Braid's build. Every Go command needs -tags nosqlite,disable_libutp:
# anacrolix/torrent links its own SQLite, which clashes with go-sqlite3 at
# link time, and a C++ uTP library; with these tags it uses neither (pure-Go
# uTP).
export GOFLAGS := -tags=nosqlite,disable_libutp
export CGO_ENABLED := 1

# bin/braid is the command line, built headless: without the GUI toolkit it
# starts in half the time and needs no X11 or OpenGL library. Its window is
# bin/braid-window, the same command with the window compiled in, which
# bin/braid hands `braid [SOURCE...]` to.
HEADLESS    := -tags=nosqlite,disable_libutp,headless

GO          ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
ARGS        ?=

.PHONY: all setup build run test lint cross wintest deb installer generate bench pgo fuzz clean

all: build

# setup installs what is missing (C toolchain, X11/GL headers, Xvfb).
setup:
	@tools/setup.sh

build: setup
	$(GO) build $(HEADLESS) -o bin/braid ./cmd/braid
	$(GO) build -o bin/braid-window ./cmd/braid

# make run ARGS='file.meta4' opens the window with a source.
run: build
	./bin/braid $(ARGS)

lint: setup
	@unformatted=$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet $(HEADLESS) ./cmd/braid
	$(GO) vet -tags=nosqlite,disable_libutp,braidtest ./cmd/braid
	$(GO) run $(STATICCHECK) ./...

# cross keeps the other systems building (tools/crosscheck.sh): cmd/braid
# cross-compiled for Windows with mingw-w64, and for macOS every package
# that needs no cgo built and vetted.
cross: setup
	@GO=$(GO) tools/crosscheck.sh

# wintest runs the tests of the packages that meet the system on Windows:
# cross-compiled with mingw-w64 and run under Wine (tools/wintest.sh).
wintest: setup
	@GO=$(GO) tools/wintest.sh $(PKGS)

# Tests that are independent of each other call t.Parallel: most of them
# wait on servers, timers and windows rather than compute, so -parallel 4
# runs them side by side even on two cores. cmd/braid's real-window tests
# each have an X display of their own, and braid and braid-window are
# linked once for them all. The timeout leaves room for a loaded machine.
# The tests build braid without default.pgo: compiling every package a
# second time with the profile would add minutes, and the profile changes
# how the code is optimised, not what it does.
test: export GOFLAGS := $(GOFLAGS) -pgo=off
test: lint cross wintest
	$(GO) test -race -count=1 -parallel 4 -timeout 50m ./...

# deb builds dist/braid_VERSION_ARCH.deb with dpkg-deb (packaging/deb/build.sh).
VERSION ?= $(shell sed -n 's/^var version = "\(.*\)"$$/\1/p' cmd/braid/cli.go)
deb: setup
	packaging/deb/build.sh $(VERSION) dist

# installer builds dist/braid-setup-VERSION.exe, the per-user Windows installer
# (packaging/windows/braid.nsi): braid.exe, the command line (console,
# headless), and braid-window.exe, the window (GUI subsystem: no console).
WINBUILD := GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc
installer: setup
	$(WINBUILD) $(GO) build $(HEADLESS) -ldflags='-s -w' -o dist/windows/braid.exe ./cmd/braid
	$(WINBUILD) $(GO) build -ldflags='-s -w -H=windowsgui' -o dist/windows/braid-window.exe ./cmd/braid
	makensis -V2 -DVERSION=$(VERSION) -DBIN=$(CURDIR)/dist/windows -DOUTFILE=$(CURDIR)/dist/braid-setup-$(VERSION).exe packaging/windows/braid.nsi

# generate remakes the committed generated files: the third-party licence
# list (assets/) and the Windows icon and version (cmd/braid/*.syso).
generate:
	$(GO) generate ./packaging

# bench compares against aria2c where it is installed (setup bench installs it).
bench: setup
	@tools/setup.sh bench
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...
	$(GO) run ./cmd/braidbench
	bench/verify.sh
	bench/repair.sh

# pgo refreshes cmd/braid/default.pgo, the CPU profile Go's profile-guided
# optimisation builds braid with (go build uses it by itself): braid built
# without a profile runs braidbench's multi-mirror, torrent, web seed and
# batch scenarios, each process writing a profile, and the profiles are
# merged into one. `make bench` shows what it saves (the pgo case).
PGOWORK ?= /tmp/braid-pgo
pgo: setup
	@tools/setup.sh bench
	rm -rf $(PGOWORK) && mkdir -p $(PGOWORK)/prof
	$(GO) build -pgo=off $(HEADLESS) -o $(PGOWORK)/braid ./cmd/braid
	BRAID_CPUPROFILE=$(PGOWORK)/prof $(GO) run ./cmd/braidbench -braid $(PGOWORK)/braid -aria2c '' -runs 1 \
		-scenarios uniform,unlimited,hostile,torrent,webseed,batch-1M,batch-10k
	$(GO) tool pprof -proto $(PGOWORK)/prof/*.pprof > cmd/braid/default.pgo

# fuzz runs each parser's fuzzer for FUZZTIME.
FUZZTIME ?= 1m
fuzz: setup
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./engine/metalink/
	$(GO) test -run '^$$' -fuzz '^FuzzParseLinks$$' -fuzztime $(FUZZTIME) ./engine/metalink/
	$(GO) test -run '^$$' -fuzz '^FuzzParseDigests$$' -fuzztime $(FUZZTIME) ./engine/metalink/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./engine/resourcesync/

clean:
	rm -rf bin dist
