package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/piece"
)

func TestMakeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := pcData(5*(64<<10)+321, 7) // 6 pieces of 64 KiB, the last short
	b := pcData(100, 8)
	pcWrite(t, dir, "a.bin", a)
	pcWrite(t, dir, "b c+ü.txt", b)
	empty := filepath.Join(dir, "empty")
	pcWrite(t, dir, "empty", nil)

	code, out, errOut := pcRun(t, cmdMake, "--piece-length", "64K",
		"--url", "http://one.example/pub/", "--url", "ftp://two.example/mirror",
		filepath.Join(dir, "a.bin"), filepath.Join(dir, "b c+ü.txt"), empty)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc, err := metalink.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatalf("parse the output: %v\n%s", err, out)
	}
	if len(doc.Files) != 3 || len(doc.Rejected) != 0 {
		t.Fatalf("%d files, %d rejected; want 3, 0", len(doc.Files), len(doc.Rejected))
	}
	tests := []struct {
		name   string
		data   []byte
		pieces int
		urls   []string
	}{
		{"a.bin", a, 6, []string{"http://one.example/pub/a.bin", "ftp://two.example/mirror/a.bin"}},
		{"b c+ü.txt", b, 1, []string{"http://one.example/pub/b%20c+%C3%BC.txt", "ftp://two.example/mirror/b%20c+%C3%BC.txt"}},
		{"empty", nil, 0, []string{"http://one.example/pub/empty", "ftp://two.example/mirror/empty"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := doc.Files[i]
			want := pcFile(tt.name, tt.data, 64<<10)
			if f.Name != tt.name || f.Size != int64(len(tt.data)) || !slices.Equal(f.Hashes, want.Hashes) {
				t.Errorf("file %q, %d bytes, %v; want %q, %d, %v", f.Name, f.Size, f.Hashes, tt.name, len(tt.data), want.Hashes)
			}
			var got []string
			for j, u := range f.URLs {
				got = append(got, u.URL)
				if u.Priority != j+1 {
					t.Errorf("mirror %s has priority %d, want %d", u.URL, u.Priority, j+1)
				}
			}
			if !slices.Equal(got, tt.urls) {
				t.Errorf("mirrors %q, want %q", got, tt.urls)
			}
			if tt.pieces == 0 {
				if f.Pieces != nil {
					t.Errorf("empty file has pieces %+v", f.Pieces)
				}
				return
			}
			if f.Pieces == nil || f.Pieces.Type != "sha-256" || f.Pieces.Length != 64<<10 || !slices.Equal(f.Pieces.Hashes, want.Pieces.Hashes) {
				t.Errorf("pieces %+v, want 64 KiB sha-256 pieces %v", f.Pieces, want.Pieces.Hashes)
			}
		})
	}

	// What make writes, verify accepts.
	meta := filepath.Join(t.TempDir(), "made.meta4")
	if err := os.WriteFile(meta, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, vout, verr := pcRun(t, cmdVerify, "--metalink", meta, "-d", dir); code != 0 {
		t.Fatalf("verify of what make wrote: exit %d\n%s%s", code, vout, verr)
	}
}

func TestMakeDefaultPieceLength(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := pcData(3*piece.MinPieceLength+1, 9)
	pcWrite(t, dir, "x", data)
	code, out, errOut := pcRun(t, cmdMake, filepath.Join(dir, "x"), "--url", "https://m.example") // flags may follow files
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc, err := metalink.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	f := doc.Files[0]
	if f.Pieces == nil || f.Pieces.Length != piece.MinPieceLength || len(f.Pieces.Hashes) != 4 {
		t.Fatalf("pieces %+v, want 4 of %d bytes", f.Pieces, piece.MinPieceLength)
	}
	if len(f.URLs) != 1 || f.URLs[0].URL != "https://m.example/x" {
		t.Errorf("mirrors %+v, want https://m.example/x", f.URLs)
	}
}

// TestMakeURLEscaped: a base URL and a name with spaces give a valid URL
// in the document, escaped, that names the file.
func TestMakeURLEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pcWrite(t, dir, "my file.bin", pcData(1000, 10))
	code, out, errOut := pcRun(t, cmdMake, "--url", "http://m.example/my dir/", filepath.Join(dir, "my file.bin"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc, err := metalink.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Files[0].URLs[0].URL; got != "http://m.example/my%20dir/my%20file.bin" {
		t.Errorf("URL %q, want spaces escaped", got)
	}
	if strings.Contains(out, "my dir") {
		t.Errorf("the document holds an unescaped space in a URL:\n%s", out)
	}
}

// TestMakeHelpTellsPieces: -h says how the default piece length is chosen
// in the numbers the code uses.
func TestMakeHelpTellsPieces(t *testing.T) {
	t.Parallel()
	_, _, errOut := pcRun(t, cmdMake, "-h")
	want := fmt.Sprintf("at most %d pieces", piece.TargetPieces)
	if !strings.Contains(errOut, want) || strings.Contains(errOut, "about 2000") {
		t.Errorf("make -h does not say %q:\n%s", want, errOut)
	}
	if n := (200<<20 + piece.DefaultPieceLength(200<<20) - 1) / piece.DefaultPieceLength(200<<20); n > piece.TargetPieces {
		t.Errorf("a 200 MiB file gets %d pieces, more than -h promises", n)
	}
}

func TestMakeErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pcWrite(t, dir, "x", []byte("x"))
	pcWrite(t, dir, "sub/x", []byte("y"))
	x := filepath.Join(dir, "x")
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no file", nil, 2, "no FILE given"},
		{"bad piece length", []string{"--piece-length", "12Q", x}, 2, "not a positive size"},
		{"zero piece length", []string{"--piece-length", "0", x}, 2, "not a positive size"},
		{"huge piece length", []string{"--piece-length", "2G", x}, 2, "larger than the largest"},
		{"url without scheme", []string{"--url", "mirror.example/pub", x}, 2, "want an http, https or ftp URL"},
		{"file url", []string{"--url", "file:///srv", x}, 2, "want an http, https or ftp URL"},
		{"url with query", []string{"--url", "http://m.example/?a=b", x}, 2, "no query"},
		{"file absent", []string{filepath.Join(dir, "none")}, 1, notFoundText(t, filepath.Join(dir, "none"))},
		{"directory", []string{dir}, 1, "not a regular file"},
		{"same base name twice", []string{x, filepath.Join(dir, "sub", "x")}, 1, "the same name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := pcRun(t, cmdMake, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, want %d; stderr lacks %q:\n%s", code, tt.code, tt.want, errOut)
			}
			if out != "" {
				t.Errorf("a failed make wrote to stdout:\n%s", out)
			}
		})
	}
}

func TestPieceLengthFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64 // 0: an error
	}{
		{"1048576", 1 << 20},
		{"256K", 256 << 10},
		{"256k", 256 << 10},
		{"1M", 1 << 20},
		{"1MB", 1 << 20},
		{"4MiB", 4 << 20},
		{"1G", 1 << 30},
		{" 2m ", 2 << 20},
		{"1025M", 0},
		{"0", 0},
		{"-1", 0},
		{"", 0},
		{"M", 0},
		{"1.5M", 0},
		{"1T", 0},
		{"9223372036854775807K", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var p pieceLengthFlag
			err := p.Set(tt.in)
			if tt.want == 0 {
				if err == nil {
					t.Fatalf("Set(%q) = %d, want an error", tt.in, p)
				}
				return
			}
			if err != nil || int64(p) != tt.want {
				t.Fatalf("Set(%q) = %d, %v; want %d", tt.in, p, err, tt.want)
			}
		})
	}
}

// notFoundText returns the system's own words for path not being there, as
// an error naming it ends: "no such file or directory" on Linux, "The
// system cannot find the file specified." on Windows.
func notFoundText(t *testing.T, path string) string {
	t.Helper()
	_, err := os.Stat(path)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Fatalf("stat %s: %v, want a path error that it does not exist", path, err)
	}
	return pe.Err.Error()
}
