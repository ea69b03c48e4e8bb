// Package stargztest makes eStargz blobs for tests, laid out as the
// eStargz writers lay them out: each tar header in the gzip member open
// before it, each regular file's bytes in gzip members of their own (one
// per chunk of at most ChunkSize bytes), the TOC (stargz.index.json) as a
// tar entry in a gzip member of its own, and the 51-byte footer (or the
// legacy 47-byte one) pointing to it. It also makes plain tar and tar.gz
// files, which have no index.
package stargztest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"testing"
	"time"
)

// File is one entry of a test blob.
type File struct {
	Name     string
	Type     string // "reg" (the default), "dir", "symlink", "hardlink"
	Data     []byte // a regular file's bytes
	LinkName string // a link's target
	Mode     int64  // 0: 0644 for a file, 0755 for a folder
}

// Entry is one TOC entry, as the JSON stores it.
type Entry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Size        int64  `json:"size,omitempty"`
	ModTime     string `json:"modtime,omitempty"`
	LinkName    string `json:"linkName,omitempty"`
	Mode        int64  `json:"mode"`
	UID         int    `json:"uid"`
	GID         int    `json:"gid"`
	Offset      int64  `json:"offset,omitempty"`
	Digest      string `json:"digest,omitempty"`
	ChunkOffset int64  `json:"chunkOffset,omitempty"`
	ChunkSize   int64  `json:"chunkSize,omitempty"`
	ChunkDigest string `json:"chunkDigest,omitempty"`
}

// TOC is the table of contents, as the JSON stores it.
type TOC struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// Options shape a blob.
type Options struct {
	// ChunkSize cuts regular files into chunks of at most this many bytes
	// (eStargz writers use 4 MiB); 0 is 4 MiB.
	ChunkSize int
	// Legacy writes the 47-byte footer of stargz instead of eStargz's.
	Legacy bool
	// EditTOC, when set, changes the TOC before it is written: a TOC
	// that lies about the bytes.
	EditTOC func(*TOC)
}

// Blob is a test blob and what is where in it.
type Blob struct {
	Bytes     []byte
	TOCOffset int64
	// TOCJSON is the TOC's JSON, and TOCDigest its "sha256:HEX".
	TOCJSON   []byte
	TOCDigest string
	// FooterSize is 51, or 47 for a legacy blob.
	FooterSize int
	// Chunks holds, for each regular file, the [start, end) byte ranges
	// of the gzip members that hold its chunks, in order.
	Chunks map[string][][2]int64
}

// ChunkBytes is the bytes of the gzip members that hold file name's
// chunks.
func (b *Blob) ChunkBytes(name string) int64 {
	var n int64
	for _, r := range b.Chunks[name] {
		n += r[1] - r[0]
	}
	return n
}

// IndexBytes is the bytes of the footer and the TOC's gzip member: what
// reading the list costs.
func (b *Blob) IndexBytes() int64 { return int64(len(b.Bytes)) - b.TOCOffset }

// counter counts what is written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writer is what the tar writer writes to: the gzip member open now.
type writer struct {
	cw *counter
	gz *gzip.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	if w.gz == nil {
		w.gz = gzip.NewWriter(w.cw)
	}
	return w.gz.Write(p)
}

func (w *writer) close(t testing.TB) {
	if w.gz != nil {
		if err := w.gz.Close(); err != nil {
			t.Fatal(err)
		}
		w.gz = nil
	}
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// Make writes an eStargz blob of the files.
func Make(t testing.TB, o Options, files ...File) *Blob {
	t.Helper()
	chunk := int64(o.ChunkSize)
	if chunk <= 0 {
		chunk = 4 << 20
	}
	var buf bytes.Buffer
	cw := &counter{w: &buf}
	w := &writer{cw: cw}
	tw := tar.NewWriter(w)
	toc := TOC{Version: 1}
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var offsets []int64
	owner := map[int64]string{}
	for _, f := range files {
		typ := f.Type
		if typ == "" {
			typ = "reg"
		}
		h := &tar.Header{Name: f.Name, Mode: f.Mode, ModTime: mod, Format: tar.FormatPAX, Linkname: f.LinkName}
		switch typ {
		case "reg":
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.Data))
			if h.Mode == 0 {
				h.Mode = 0o644
			}
		case "dir":
			h.Typeflag = tar.TypeDir
			if h.Mode == 0 {
				h.Mode = 0o755
			}
		case "symlink":
			h.Typeflag, h.Mode = tar.TypeSymlink, 0o777
		case "hardlink":
			h.Typeflag, h.Mode = tar.TypeLink, 0o644
		default:
			t.Fatalf("stargztest: type %q", typ)
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		e := Entry{Name: f.Name, Type: typ, ModTime: mod.Format(time.RFC3339), LinkName: f.LinkName, Mode: h.Mode}
		if typ != "reg" || len(f.Data) == 0 {
			if typ == "reg" {
				e.Digest = digest(nil)
			}
			toc.Entries = append(toc.Entries, e)
			continue
		}
		e.Size, e.Digest = int64(len(f.Data)), digest(f.Data)
		for at := int64(0); at < int64(len(f.Data)); {
			n := min(chunk, int64(len(f.Data))-at)
			w.close(t) // each chunk starts a gzip member
			e.Offset, e.ChunkOffset = cw.n, at
			if at+n < int64(len(f.Data)) {
				e.ChunkSize = n // the last chunk's is 0
			}
			e.ChunkDigest = digest(f.Data[at : at+n])
			offsets = append(offsets, cw.n)
			owner[cw.n] = f.Name
			if _, err := tw.Write(f.Data[at : at+n]); err != nil {
				t.Fatal(err)
			}
			toc.Entries = append(toc.Entries, e)
			at += n
			e = Entry{Name: f.Name, Type: "chunk", ModTime: e.ModTime}
		}
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	w.close(t)
	tocOff := cw.n
	if o.EditTOC != nil {
		o.EditTOC(&toc)
	}
	js, err := json.MarshalIndent(toc, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(cw)
	ttw := tar.NewWriter(gz)
	if err := ttw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "stargz.index.json", Size: int64(len(js))}); err != nil {
		t.Fatal(err)
	}
	if _, err := ttw.Write(js); err != nil {
		t.Fatal(err)
	}
	if err := ttw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	footer := Footer(t, tocOff, o.Legacy)
	buf.Write(footer)

	b := &Blob{Bytes: buf.Bytes(), TOCOffset: tocOff, TOCJSON: js, TOCDigest: digest(js), FooterSize: len(footer), Chunks: map[string][][2]int64{}}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	for i, off := range offsets {
		end := tocOff
		if i+1 < len(offsets) {
			end = offsets[i+1]
		}
		b.Chunks[owner[off]] = append(b.Chunks[owner[off]], [2]int64{off, end})
	}
	return b
}

// Footer is the footer that points to a TOC at tocOff: eStargz's 51
// bytes, or stargz's 47 when legacy.
func Footer(t testing.TB, tocOff int64, legacy bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	sub := fmt.Sprintf("%016xSTARGZ", tocOff)
	if legacy {
		gz.Header.Extra = []byte(sub)
	} else {
		extra := []byte{'S', 'G', 0, 0}
		binary.LittleEndian.PutUint16(extra[2:], uint16(len(sub)))
		gz.Header.Extra = append(extra, sub...)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	want := 51
	if legacy {
		want = 47
	}
	if buf.Len() != want {
		t.Fatalf("stargztest: footer of %d bytes, want %d", buf.Len(), want)
	}
	return buf.Bytes()
}

// Tar writes a plain tar of the files (regular files and folders).
func Tar(t testing.TB, files ...File) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.Name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(f.Data))}
		if f.Type == "dir" {
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TarGz writes a plain tar.gz of the files: one gzip stream, no index.
func TarGz(t testing.TB, files ...File) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	if _, err := gz.Write(Tar(t, files...)); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
