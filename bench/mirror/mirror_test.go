package mirror

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"
)

func TestParseRange(t *testing.T) {
	tests := []struct {
		in       string
		off, end int64
		ok       bool
	}{
		{"bytes=0-99", 0, 100, true},
		{"bytes=10-", 10, 1000, true},
		{"bytes=-100", 900, 1000, true},
		{"bytes=990-2000", 990, 1000, true},
		{"bytes=1000-", 0, 0, false},
		{"bytes=5-1", 0, 0, false},
		{"bytes=0-1,5-6", 0, 0, false},
		{"items=0-1", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			off, end, ok := parseRange(tc.in, 1000)
			if ok != tc.ok || (ok && (off != tc.off || end != tc.end)) {
				t.Fatalf("parseRange(%q) = %d, %d, %v; want %d, %d, %v", tc.in, off, end, ok, tc.off, tc.end, tc.ok)
			}
		})
	}
}

func TestServe(t *testing.T) {
	c := NewContent(1 << 20)
	want := make([]byte, c.Size)
	c.Fill(want, 0)
	const pl = 64 << 10
	tests := []struct {
		name    string
		b       Behaviour
		off, n  int64
		corrupt int64 // offset of the byte expected flipped, -1 none
	}{
		{"range", Behaviour{}, 1000, 5000, -1},
		{"corrupts every third piece", Behaviour{CorruptLen: pl, CorruptEvery: 3}, 2 * pl, pl, 2 * pl},
		{"spares the others", Behaviour{CorruptLen: pl, CorruptEvery: 3}, 0, 2 * pl, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(c, "127.0.0.1", tc.b)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			req, _ := http.NewRequest("GET", s.URL(), nil)
			req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", tc.off, tc.off+tc.n-1))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusPartialContent {
				t.Fatalf("status %d, %v", resp.StatusCode, err)
			}
			exp := bytes.Clone(want[tc.off : tc.off+tc.n])
			if tc.corrupt >= 0 {
				exp[tc.corrupt-tc.off] ^= 0xff
			}
			if !bytes.Equal(got, exp) {
				t.Fatal("served bytes differ from the content")
			}
		})
	}
}
