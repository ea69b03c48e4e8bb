package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/mirrortest"
)

// getData is n bytes of noise; different lengths give different bytes,
// not prefixes of one another (tests rely on that: a shorter file is not
// the start of a longer one).
func getData(n int) []byte { return mirrortest.Bytes(n, uint64(n)<<8|3) }

// writeMeta4 writes a .meta4 for one file with a whole-file sha-256 (the
// given one, or the data's) and sha-256 pieces of pl bytes.
func writeMeta4(t *testing.T, dir, name string, data []byte, pl int, hash string, urls ...string) string {
	t.Helper()
	if hash == "" {
		s := sha256.Sum256(data)
		hash = hex.EncodeToString(s[:])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n<file name=%q>\n<size>%d</size>\n<hash type=\"sha-256\">%s</hash>\n", name, len(data), hash)
	fmt.Fprintf(&b, "<pieces length=\"%d\" type=\"sha-256\">\n", pl)
	for off := 0; off < len(data); off += pl {
		s := sha256.Sum256(data[off:min(off+pl, len(data))])
		fmt.Fprintf(&b, "<hash>%x</hash>\n", s)
	}
	b.WriteString("</pieces>\n")
	for i, u := range urls {
		fmt.Fprintf(&b, "<url priority=\"%d\">%s</url>\n", i+1, u)
	}
	b.WriteString("</file>\n</metalink>\n")
	p := filepath.Join(dir, "src.meta4")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noPieces takes the piece hashes out of the .meta4 at path.
func noPieces(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(`(?s)<pieces .*?</pieces>\n`).ReplaceAll(b, nil)
	if bytes.Equal(out, b) {
		t.Fatalf("%s has no pieces element", path)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func runGet(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cmdGet(context.Background(), append([]string{"--state", t.TempDir()}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestGetUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		{"no source", nil},
		{"bad limit", []string{"--limit", "fast", "x.meta4"}},
		{"no connections", []string{"--max-conn", "0", "x.meta4"}},
		{"unknown flag", []string{"--bogus", "x.meta4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, stderr := runGet(t, tc.args...); code != 2 || stderr == "" {
				t.Fatalf("exit %d (stderr %q), want 2 and a message", code, stderr)
			}
		})
	}
}

func TestGetMeta4(t *testing.T) {
	t.Parallel()
	data := getData(2<<20 + 11)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	src := t.TempDir()
	meta := writeMeta4(t, src, "dir/f.bin", data, 256<<10, "", a.URL(), b.URL())
	out := t.TempDir()
	// Flags after the source count, as they do for aria2c and curl.
	code, stdout, stderr := runGet(t, meta, "-d", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, "dir", "f.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %v (equal %v)", err, bytes.Equal(got, data))
	}
	last := lastJSON(t, stdout)
	if last["type"] != "result" || last["ok"] != true || last["file"] != "dir/f.bin" {
		t.Fatalf("last JSON line %v, want an ok result for dir/f.bin", last)
	}
}

// A source given twice is fetched once, not twice side by side into
// "f (1).bin".
func TestGetSourceTwice(t *testing.T) {
	t.Parallel()
	data := getData(512<<10 + 9)
	m := mirrortest.New(t, data)
	meta := writeMeta4(t, t.TempDir(), "twice.bin", data, 64<<10, "", m.URL())
	out := t.TempDir()
	code, _, stderr := runGet(t, "-d", out, meta, meta)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "given more than once") {
		t.Errorf("stderr does not tell the repeat: %q", stderr)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "twice.bin" {
		t.Fatalf("the folder holds %v, want twice.bin alone", entries)
	}
	if got := m.BytesServed(); got != int64(len(data)) {
		t.Fatalf("the mirror served %d bytes, want the file once: %d", got, len(data))
	}
}

func TestGetFailures(t *testing.T) {
	t.Parallel()
	data := getData(1 << 20)
	m := mirrortest.New(t, data)
	t.Run("hash mismatch: exit 1, no file", func(t *testing.T) {
		src, out := t.TempDir(), t.TempDir()
		// A whole-file hash alone, which the file does not match.
		meta := writeMeta4(t, src, "f.bin", data, 256<<10, strings.Repeat("ab", 32), m.URL())
		noPieces(t, meta)
		code, _, stderr := runGet(t, "-d", out, meta)
		if code != 1 || !strings.Contains(stderr, "does not match") {
			t.Fatalf("exit %d, stderr %q; want 1 and a mismatch message", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "f.bin")); !os.IsNotExist(err) {
			t.Fatalf("file at the final name: %v", err)
		}
	})
	t.Run("sha-256 pieces prove the file without the whole-file hash", func(t *testing.T) {
		src, out := t.TempDir(), t.TempDir()
		// The pieces match and the whole-file hash does not: the pieces,
		// each checked as it arrived, prove the file, and the whole-file
		// pass that would find the metalink's disagreement is left to
		// verify --full.
		meta := writeMeta4(t, src, "f.bin", data, 256<<10, strings.Repeat("ab", 32), m.URL())
		code, stdout, stderr := runGet(t, "-d", out, meta)
		if code != 0 || !strings.Contains(stdout, "f.bin: done, verified (sha-256 piece hashes)") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want done, verified by the piece hashes", code, stdout, stderr)
		}
		var vout, verr bytes.Buffer
		if code := cmdVerify(context.Background(), []string{"--metalink", meta, "-d", out, "--full"}, &vout, &verr); code != 1 {
			t.Fatalf("verify --full: exit %d, %s%s; want 1, the whole-file hash disagreeing", code, vout.String(), verr.String())
		}
	})
	t.Run("existing different file: kept, saved beside it", func(t *testing.T) {
		src, out := t.TempDir(), t.TempDir()
		meta := writeMeta4(t, src, "f.bin", data, 256<<10, "", m.URL())
		os.WriteFile(filepath.Join(out, "f.bin"), []byte("mine"), 0o644)
		code, stdout, stderr := runGet(t, "-d", out, meta)
		if code != 0 || !strings.Contains(stdout, "saved as f (1).bin") || !strings.Contains(stdout, "f.bin was already there") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and a word about f (1).bin", code, stdout, stderr)
		}
		if got, _ := os.ReadFile(filepath.Join(out, "f.bin")); string(got) != "mine" {
			t.Fatal("existing file overwritten")
		}
		if got, _ := os.ReadFile(filepath.Join(out, "f (1).bin")); !bytes.Equal(got, data) {
			t.Fatal("f (1).bin does not hold the download")
		}
	})
	t.Run("a ResourceSync list: exit 1, braid sync named", func(t *testing.T) {
		list := filepath.Join(t.TempDir(), "resourcelist.xml")
		os.WriteFile(list, []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist"/><url><loc>`+m.URL()+`</loc></url></urlset>`), 0o644)
		code, _, stderr := runGet(t, "-d", t.TempDir(), list)
		if code != 1 || !strings.Contains(stderr, "not a metalink; braid sync "+list+" -d DIR keeps a folder a copy of it") {
			t.Fatalf("exit %d, stderr %q; want 1 and braid sync named", code, stderr)
		}
	})
	t.Run("missing source: exit 1", func(t *testing.T) {
		if code, _, _ := runGet(t, "-d", t.TempDir(), filepath.Join(t.TempDir(), "none.meta4")); code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
	})
}

func TestGetPlainURL(t *testing.T) {
	t.Parallel()
	data := getData(1<<20 + 3)
	s := sha256.Sum256(data)
	dup := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	origin := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Path("/pub/plain.iso"),
		mirrortest.Header("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(s[:])),
		mirrortest.Header("Link", "<"+dup.URL()+">; rel=duplicate"))
	out := t.TempDir()
	code, stdout, stderr := runGet(t, "-d", out, origin.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, "plain.iso"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("plain.iso: %v", err)
	}
	if !strings.Contains(stdout, "plain.iso: done, verified") {
		t.Fatalf("stdout %q, want a done line", stdout)
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	s := &engine.Snapshot{Name: "f.iso", Size: 1000, Bytes: 250, Speed: 2048, ETA: 3 * time.Second, State: engine.StateDownloading,
		Mirrors: []engine.MirrorSnapshot{{State: engine.MirrorActive}, {State: engine.MirrorIdle}, {State: engine.MirrorDropped}}}
	got := progressLine(s)
	for _, want := range []string{"f.iso", "downloading", "25.0%", "2.0 KiB/s", "ETA 3.0s", "mirrors 1/2"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress line %q lacks %q", got, want)
		}
	}
	s.State, s.Hashed = engine.StateVerifying, 500
	if got := progressLine(s); !strings.Contains(got, "verifying  50.0%") {
		t.Errorf("verifying line %q, want the hashed share", got)
	}
	s.State, s.Rebuilding = engine.StateDownloading, 3
	if got := progressLine(s); !strings.Contains(got, "f.iso  no mirror has good bytes: rebuilding 3 pieces from parity") {
		t.Errorf("rebuilding line %q", got)
	}
}

// A mirror that sends pieces failing their hash is named when the file
// comes out right from the other one: what it sent, and that it was
// dropped. The good mirror is not named.
func TestGetTellsMirrorThatLies(t *testing.T) {
	t.Parallel()
	data := getData(2<<20 + 5)
	liar := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Corrupt(256<<10, func(int) bool { return true }))
	good := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	meta := writeMeta4(t, t.TempDir(), "lied.bin", data, 256<<10, "", liar.URL(), good.URL())
	out := t.TempDir()
	code, stdout, stderr := runGet(t, "-d", out, meta)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(filepath.Join(out, "lied.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %v (equal %v)", err, bytes.Equal(got, data))
	}
	told := regexp.MustCompile(`(?m)^lied\.bin: ` + regexp.QuoteMeta(liar.URL()) +
		`: [0-9]+ pieces? it sent failed (its|their) hash and (was|were) fetched again; it was dropped$`)
	if !told.MatchString(stderr) {
		t.Errorf("stderr does not name the lying mirror as dropped:\n%s", stderr)
	}
	if strings.Contains(stderr, good.URL()) {
		t.Errorf("stderr names the good mirror:\n%s", stderr)
	}
	if !strings.Contains(stdout, "lied.bin: done, verified") {
		t.Errorf("stdout: %q", stdout)
	}
}
