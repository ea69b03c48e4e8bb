package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
)

const vL = 16 << 10 // piece length of the verify tests

func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	a := pcData(10*vL+500, 1) // 11 pieces, the last of 500 bytes
	b := pcData(3*vL, 2)
	fa, fb := pcFile("a.bin", a, vL), pcFile("sub/b.bin", b, vL)
	meta := pcMeta4(t, fa, fb)

	tests := []struct {
		name     string
		flags    []string
		a, b     []byte // on disk; nil: absent
		code     int
		want     []string // lines (or parts) the text output must have
		wantNot  []string
		aStatus  string
		aBad     []int
		aMissing []int
		aRanges  []rangeJSON
		trailing int64
	}{
		{
			name: "all good", a: a, b: b, code: 0,
			want:    []string{"a.bin: OK (164340 bytes; 11 sha-256 pieces match, covering the whole-file sha-256)", "sub/b.bin: OK"},
			wantNot: []string{"BAD", "repair"},
			aStatus: statusOK, aBad: []int{}, aMissing: []int{}, aRanges: []rangeJSON{},
		},
		{
			name: "all good, --full", flags: []string{"--full"}, a: a, b: b, code: 0,
			want:    []string{"a.bin: OK (164340 bytes; whole-file sha-256 and 11 sha-256 pieces match)", "sub/b.bin: OK"},
			wantNot: []string{"BAD", "repair", "covering"},
			aStatus: statusOK, aBad: []int{}, aMissing: []int{}, aRanges: []rangeJSON{},
		},
		{
			name: "flipped pieces", a: pcFlip(a, 1*vL+3, 3*vL, 4*vL+vL-1, 10*vL+499), b: b, code: 1,
			want: []string{
				"a.bin: BAD",
				"  4 of 11 pieces fail their sha-256 hash:",
				"    bytes 16384-32767 (piece 1)",
				"    bytes 49152-81919 (pieces 3-4)",
				"    bytes 163840-164339 (piece 10)",
				"sub/b.bin: OK",
				"braid repair --metalink " + meta,
			},
			wantNot: []string{"does not match"},
			aStatus: statusBad, aBad: []int{1, 3, 4, 10}, aMissing: []int{},
			aRanges: []rangeJSON{{vL, vL}, {3 * vL, 2 * vL}, {10 * vL, 500}},
		},
		{
			name: "flipped pieces, --full", flags: []string{"--full"}, a: pcFlip(a, 1*vL+3, 3*vL, 4*vL+vL-1, 10*vL+499), b: b, code: 1,
			want: []string{
				"a.bin: BAD",
				"  4 of 11 pieces fail their sha-256 hash:",
				"    bytes 16384-32767 (piece 1)",
				"    bytes 49152-81919 (pieces 3-4)",
				"    bytes 163840-164339 (piece 10)",
				"  whole-file sha-256 does not match",
				"sub/b.bin: OK",
				"braid repair --metalink " + meta,
			},
			aStatus: statusBad, aBad: []int{1, 3, 4, 10}, aMissing: []int{},
			aRanges: []rangeJSON{{vL, vL}, {3 * vL, 2 * vL}, {10 * vL, 500}},
		},
		{
			name: "truncated", a: a[:6*vL+10], b: b, code: 1,
			want: []string{
				"a.bin: BAD",
				"  file is 98314 bytes, 66026 short of 164340: bytes 98314-164339 missing (pieces 6-10 incomplete)",
			},
			wantNot: []string{"fail their", "does not match"},
			aStatus: statusBad, aBad: []int{6, 7, 8, 9, 10}, aMissing: []int{6, 7, 8, 9, 10},
			aRanges: []rangeJSON{{6 * vL, 4*vL + 500}},
		},
		{
			name: "trailing garbage", a: append(slices.Clone(a), "garbage"...), b: b, code: 1,
			want: []string{
				"a.bin: BAD",
				"  7 bytes past the end (file is 164347 bytes, expected 164340); the rest is right, so cutting them off repairs it",
			},
			wantNot: []string{"does not match"},
			aStatus: statusBad, aBad: []int{}, aMissing: []int{}, aRanges: []rangeJSON{}, trailing: 7,
		},
		{
			name: "one file absent", a: nil, b: b, code: 1,
			want:    []string{"a.bin: MISSING (not in ", "sub/b.bin: OK"},
			aStatus: statusMissing, aBad: []int{}, aMissing: []int{}, aRanges: []rangeJSON{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.a != nil {
				pcWrite(t, dir, "a.bin", tt.a)
			}
			pcWrite(t, dir, "sub/b.bin", tt.b)

			code, out, errOut := pcRun(t, cmdVerify, append([]string{"--metalink", meta, "-d", dir}, tt.flags...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}

			code, out, _ = pcRun(t, cmdVerify, append([]string{"--json", "--metalink", meta, "-d", dir}, tt.flags...)...)
			if code != tt.code {
				t.Fatalf("--json: exit %d, want %d", code, tt.code)
			}
			var got verifyJSON
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("--json output: %v\n%s", err, out)
			}
			if got.OK != (tt.code == 0) || len(got.Files) != 2 {
				t.Fatalf("--json: ok %v with %d files, want ok %v with 2", got.OK, len(got.Files), tt.code == 0)
			}
			ja := got.Files[0]
			if ja.Name != "a.bin" || ja.Status != tt.aStatus || !slices.Equal(ja.BadPieces, tt.aBad) ||
				!slices.Equal(ja.MissingPieces, tt.aMissing) || !slices.Equal(ja.BadRanges, tt.aRanges) || ja.Trailing != tt.trailing {
				t.Errorf("--json a.bin = %+v\nwant status %s, bad %v, missing %v, ranges %v, trailing %d",
					ja, tt.aStatus, tt.aBad, tt.aMissing, tt.aRanges, tt.trailing)
			}
			if got.Files[1].Status != statusOK {
				t.Errorf("--json sub/b.bin status %q, want ok", got.Files[1].Status)
			}
		})
	}
}

func TestVerifyWithoutPieceHashes(t *testing.T) {
	t.Parallel()
	data := pcData(50_000, 3)
	meta := pcMeta4(t, pcFile("x.bin", data, 0))
	tests := []struct {
		name   string
		onDisk []byte
		code   int
		want   string
	}{
		{"good", data, 0, "x.bin: OK (50000 bytes; whole-file sha-256 match)"},
		{"flipped", pcFlip(data, 100), 1, "no piece hashes Braid can use, so the bad bytes cannot be located"},
		{"truncated", data[:40_000], 1, "bytes 40000-49999 missing\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pcWrite(t, dir, "x.bin", tt.onDisk)
			code, out, _ := pcRun(t, cmdVerify, "--metalink", meta, "-d", dir)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want %d; output lacks %q:\n%s", code, tt.code, tt.want, out)
			}
		})
	}
}

func TestVerifyNoUsableHash(t *testing.T) {
	t.Parallel()
	data := pcData(1000, 4)
	f := metalink.File{Name: "x.bin", Size: 1000}
	dir := t.TempDir()
	pcWrite(t, dir, "x.bin", data)
	code, out, _ := pcRun(t, cmdVerify, "--metalink", pcMeta4(t, f), "-d", dir)
	if code != 1 || !strings.Contains(out, "x.bin: UNVERIFIED") {
		t.Fatalf("exit %d, want 1 and UNVERIFIED:\n%s", code, out)
	}
}

// TestVerifyHostileName checks that a name leading out of DIR is refused
// by the reader and never opened, while the other files are verified.
func TestVerifyHostileName(t *testing.T) {
	t.Parallel()
	data := pcData(1000, 5)
	top := t.TempDir()
	dir := filepath.Join(top, "dl")
	pcWrite(t, top, "secret", data) // what ../secret would reach
	pcWrite(t, dir, "ok.bin", data)
	meta := pcMeta4(t, pcFile("../secret", data, 0), pcFile("ok.bin", data, 0))
	code, out, errOut := pcRun(t, cmdVerify, "--metalink", meta, "-d", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (the good file verifies, the unsafe one is skipped)\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "ok.bin: OK") || !strings.Contains(out, "../secret: SKIPPED") || strings.Contains(out, "../secret: OK") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestVerifyUsage(t *testing.T) {
	t.Parallel()
	meta := pcMeta4(t, pcFile("x.bin", pcData(10, 6), 0))
	bad := filepath.Join(t.TempDir(), "bad.meta4")
	if err := os.WriteFile(bad, []byte("<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file name=\"x\">"), 0o644); err != nil {
		t.Fatal(err)
	}
	absentMeta := filepath.Join(t.TempDir(), "none.meta4")
	absentDir := filepath.Join(t.TempDir(), "none")
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no metalink", []string{"-d", "."}, 2, "want --metalink M"},
		{"extra argument", []string{"--metalink", meta, "x"}, 2, "want --metalink M"},
		{"unknown flag", []string{"--metalink", meta, "--frobnicate"}, 2, "frobnicate"},
		{"help", []string{"-h"}, 0, "Usage: braid verify"},
		{"metalink absent", []string{"--metalink", absentMeta}, 1, notFoundText(t, absentMeta)},
		{"metalink malformed", []string{"--metalink", bad}, 1, "bad.meta4"},
		{"folder absent", []string{"--metalink", meta, "-d", absentDir}, 1, notFoundText(t, absentDir)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := pcRun(t, cmdVerify, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, want %d; stderr lacks %q:\n%s", code, tt.code, tt.want, errOut)
			}
		})
	}
}
