package main

// Helpers shared by the tests of make, verify and repair.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
)

// pcRun runs one command function and returns its exit status, stdout and
// stderr.
func pcRun(t testing.TB, cmd command, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cmd(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// pcData returns n reproducible pseudo-random bytes.
func pcData(n int, seed byte) []byte { return mirrortest.Bytes(n, uint64(seed)) }

func pcSHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// pcFile describes data by hand with crypto/sha256 (independently of
// piece.Describe): whole-file sha-256 and, when length > 0, sha-256 pieces.
func pcFile(name string, data []byte, length int64, urls ...string) metalink.File {
	f := metalink.File{Name: name, Size: int64(len(data)), Hashes: []metalink.Hash{{Type: "sha-256", Value: pcSHA256(data)}}}
	if length > 0 {
		f.Pieces = &metalink.Pieces{Type: "sha-256", Length: length}
		for off := int64(0); off < int64(len(data)); off += length {
			f.Pieces.Hashes = append(f.Pieces.Hashes, pcSHA256(data[off:min(off+length, int64(len(data)))]))
		}
	}
	for i, u := range urls {
		f.URLs = append(f.URLs, metalink.URL{URL: u, Priority: i + 1})
	}
	return f
}

// pcMeta4 writes a Metalink 4 document for files by hand (so these tests do
// not lean on metalink.Write) and returns its path.
func pcMeta4(t testing.TB, files ...metalink.File) string {
	t.Helper()
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<metalink xmlns="urn:ietf:params:xml:ns:metalink">` + "\n")
	for _, f := range files {
		fmt.Fprintf(&b, "  <file name=\"%s\">\n    <size>%d</size>\n", esc(f.Name), f.Size)
		for _, h := range f.Hashes {
			fmt.Fprintf(&b, "    <hash type=\"%s\">%s</hash>\n", h.Type, h.Value)
		}
		if p := f.Pieces; p != nil {
			fmt.Fprintf(&b, "    <pieces length=\"%d\" type=\"%s\">\n", p.Length, p.Type)
			for _, h := range p.Hashes {
				fmt.Fprintf(&b, "      <hash>%s</hash>\n", h)
			}
			b.WriteString("    </pieces>\n")
		}
		for _, u := range f.URLs {
			fmt.Fprintf(&b, "    <url priority=\"%d\">%s</url>\n", u.Priority, esc(u.URL))
		}
		b.WriteString("  </file>\n")
	}
	b.WriteString("</metalink>\n")
	path := filepath.Join(t.TempDir(), "files.meta4")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pcWrite writes data to dir/name.
func pcWrite(t testing.TB, dir, name string, data []byte) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pcFlip returns a copy of data with the byte at each offset inverted.
func pcFlip(data []byte, offs ...int64) []byte {
	out := bytes.Clone(data)
	for _, off := range offs {
		out[off] ^= 0xff
	}
	return out
}
