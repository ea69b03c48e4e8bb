package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"braid/bench/mirror"
)

// syncEntries is the size of the sync case's Resource List (flag).
var syncEntries = new(int)

// syncAriaMax is the most files aria2c gets in the sync case: it takes
// some 10 ms a file here (2,000 in 20 s), so 100,000 would pass a run's
// 10-minute limit. Its figures are then per file.
const syncAriaMax = 10_000

// syncFileSize is the size of each resource of the sync case: small, so
// the case measures what a sync does per entry, not the bytes.
const syncFileSize = 512

func init() {
	extras = append(extras, extra{name: "sync", run: runSync, flags: func(fs *flag.FlagSet) {
		fs.IntVar(syncEntries, "sync-entries", 100_000, "resources in the sync case's Resource List")
	}})
}

// runSync serves a ResourceSync Resource List of -sync-entries resources
// of 512 bytes (each with its sha-256 and length) from a loopback server,
// and runs `braid sync` on it twice: into an empty folder, then again
// with nothing changed. The list names no Change List, so the second run
// compares the whole list with the folder (hashing every file), the
// costly way to find that nothing changed; it must download nothing.
// aria2c, which reads no ResourceSync, downloads the same files (at most
// syncAriaMax of them) from an input file with each file's sha-256 (-j16),
// for the first run's figures.
func runSync(ctx context.Context, env *benchEnv, out io.Writer) (bool, error) {
	n := *syncEntries
	whole := mirror.NewContent(int64(n) * syncFileSize)
	names := make([]string, n)
	files := make(map[string][]byte, n)
	var list bytes.Buffer
	list.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2026-01-01T00:00:00Z"/>
`)
	var aria strings.Builder
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		return false, err
	}
	base := "http://" + ln.Addr().String() + "/"
	for i := range names {
		names[i] = fmt.Sprintf("d%03d/f%06d.bin", i%100, i)
		data := make([]byte, syncFileSize)
		whole.Fill(data, int64(i)*syncFileSize)
		files["/"+names[i]] = data
		sum := sha256.Sum256(data)
		fmt.Fprintf(&list, "<url><loc>%s%s</loc><lastmod>2026-01-01T00:00:00Z</lastmod><rs:md hash=\"sha-256:%x\" length=\"%d\"/></url>\n",
			base, names[i], sum, len(data))
		if i < syncAriaMax {
			fmt.Fprintf(&aria, "%s%s\n  out=%s\n  checksum=sha-256=%s\n", base, names[i], names[i], hex.EncodeToString(sum[:]))
		}
	}
	list.WriteString("</urlset>\n")
	var served atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/resourcelist.xml" {
			w.Header().Set("Content-Type", "application/xml")
			w.Write(list.Bytes())
			return
		}
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		served.Add(int64(len(data)))
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	in := filepath.Join(env.dir, "sync.aria2")
	if err := os.WriteFile(in, []byte(aria.String()), 0o644); err != nil {
		return false, err
	}
	defer os.Remove(in)

	fmt.Fprintf(out, "\nsync: a Resource List of %d resources of %d bytes (sha-256, %s of list) on loopback; then the unchanged list again, compared file by file\n",
		n, syncFileSize, humanSize(int64(list.Len())))
	check := func(dir string, n int) error {
		for _, name := range []string{names[0], names[n/2], names[n-1]} {
			if err := checkFile(filepath.Join(dir, filepath.FromSlash(name)), syncFileSize); err != nil {
				return err
			}
		}
		return nil
	}
	line := func(name string, r childRun, note string) {
		fmt.Fprintf(out, "  %-14s %7.2fs  CPU %6.2fs  RSS %6.1f MiB (%.1f anonymous)  %s\n",
			name, r.wall.Seconds(), r.cpu.Seconds(), float64(r.rss)/(1<<20), float64(r.anon)/(1<<20), note)
	}
	dir := filepath.Join(env.dir, "sync-braid")
	state := filepath.Join(env.dir, "sync-state")
	defer os.RemoveAll(dir)
	defer os.RemoveAll(state)
	args := []string{"sync", "--state", state, "-d", dir, base + "resourcelist.xml"}
	first, err := runChild(ctx, dir, env.braid, args...)
	if err == nil {
		err = check(dir, n)
	}
	if err != nil {
		return false, fmt.Errorf("braid sync: %w", err)
	}
	line("braid sync", first, fmt.Sprintf("%.0f µs CPU a file", first.cpu.Seconds()*1e6/float64(n)))
	before := served.Load()
	second, err := runChild(ctx, dir, env.braid, args...)
	if err != nil {
		return false, fmt.Errorf("braid sync again: %w", err)
	}
	again := served.Load() - before
	ok := again == 0
	verdict := "met: nothing downloaded"
	if !ok {
		verdict = fmt.Sprintf("MISSED: downloaded %s again", humanSize(again))
	}
	line("braid again", second, fmt.Sprintf("%.0f µs CPU a file; %s", second.cpu.Seconds()*1e6/float64(n), verdict))
	if env.aria != "" {
		o := filepath.Join(env.dir, "sync-aria2c")
		r, err := runChild(ctx, o, env.aria, "--no-conf", "-i", in, "-d", o, "-j16")
		na := min(n, syncAriaMax)
		if err == nil {
			err = check(o, na)
		}
		os.RemoveAll(o)
		if err != nil {
			fmt.Fprintf(out, "  aria2c failed: %v\n", err)
		} else {
			line("aria2c -i -j16", r, fmt.Sprintf("%.0f µs CPU a file; %d of the files from an input file with their sha-256", r.cpu.Seconds()*1e6/float64(na), na))
		}
	}
	return ok, nil
}
