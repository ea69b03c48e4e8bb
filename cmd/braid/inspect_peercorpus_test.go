package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/peercorpus"
	"braid/engine/resolve"
	"braid/engine/resourcesync"
)

// `braid inspect`, in-process, over every document of the peer corpus
// (other projects' test documents, ../shared/peer-corpus beside the
// repository, or BRAID_PEER_CORPUS; see engine/metalink's
// TestPeerCorpusMetalink for the row-by-row comparison with each
// project's tests). Here: inspect never panics, refuses what the reader
// refuses with one clear line and exit 1, and otherwise shows exactly the
// reader's files, refusals and warnings, in text and in --json; and the
// spot checks below hold what inspect prints to the peers' assertions.

// inspectSafely runs inspect with empty defaults (so no locale narrows
// anything), failing the test on a panic.
func inspectSafely(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("inspect %q panicked: %v", args, r)
		}
	}()
	var out, errOut bytes.Buffer
	code = runInspect(context.Background(), args, &out, &errOut, metalink.Prefs{}, resolve.Options{})
	return code, out.String(), errOut.String()
}

// inspectAgrees runs inspect (text and --json) on path and checks it
// against what the reader makes of the same bytes.
func inspectAgrees(t *testing.T, path string) *inspectReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, perr := metalink.Parse(bytes.NewReader(data))
	code, out, errOut := inspectSafely(t, path)
	jcode, jout, jerr := inspectSafely(t, "--json", path)
	if perr != nil {
		want := perr.Error()
		if errors.Is(perr, metalink.ErrNotMetalink) && resourcesync.Sniff(data) {
			// Not a broken metalink: a ResourceSync document, named as
			// one with the command that syncs it.
			want = resolve.ErrResourceSync.Error() + "; braid sync "
		}
		for _, run := range []struct {
			code     int
			out, err string
		}{{code, out, errOut}, {jcode, jout, jerr}} {
			if run.code != 1 || run.out != "" {
				t.Errorf("a document the reader refuses: exit %d, stdout %q; want 1 and nothing", run.code, run.out)
			}
			if !strings.HasPrefix(run.err, "braid inspect: ") || strings.Count(run.err, "\n") != 1 || !strings.Contains(run.err, want) {
				t.Errorf("stderr %q; want one line saying %q", run.err, want)
			}
		}
		return nil
	}
	if code != 0 || jcode != 0 {
		t.Fatalf("exit %d / %d: %s %s", code, jcode, errOut, jerr)
	}
	var r inspectReport
	dec := json.NewDecoder(strings.NewReader(jout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("--json: %v", err)
	}
	var files, rej []string
	for _, f := range r.Files {
		files = append(files, f.Name)
	}
	for _, x := range r.Rejected {
		rej = append(rej, x.Name)
	}
	var wantFiles, wantRej []string
	for _, f := range doc.Files {
		wantFiles = append(wantFiles, f.Name)
	}
	for _, x := range doc.Rejected {
		wantRej = append(wantRej, x.Name)
	}
	if !slices.Equal(files, wantFiles) || !slices.Equal(rej, wantRej) || !slices.Equal(r.Warnings, inspectList(doc.Warnings)) {
		t.Errorf("inspect shows files %q rejected %q warnings %q; the reader has %q %q %q", files, rej, r.Warnings, wantFiles, wantRej, doc.Warnings)
	}
	if r.Selected != len(doc.Files) {
		t.Errorf("%d of %d selected with no preferences", r.Selected, len(doc.Files))
	}
	for _, f := range doc.Files {
		if !strings.Contains(out, "] "+inspectClean(f.Name)+"\n") {
			t.Errorf("the text does not show %q:\n%s", f.Name, out)
		}
	}
	for _, w := range doc.Warnings {
		if !strings.Contains(out, inspectClean(w)) {
			t.Errorf("the text does not show the warning %q", w)
		}
	}
	return &r
}

// inspectSpots hold what inspect prints to the peers' assertions where
// the issue of documents in the wild is visible to a user.
var inspectSpots = map[string]struct {
	cite string
	text []string // each must be in the text output
	json func(t *testing.T, r *inspectReport)
}{
	"metalink/libmetalink/test2.xml": {
		cite: "libmetalink metalink_parser_test_v4.c validate_result: badpri's priority -100 falls back to 999999",
		text: []string{"pri 999999 http://badpriority/"},
		json: func(t *testing.T, r *inspectReport) {
			for _, f := range r.Files {
				if f.Name == "badpri" && f.Mirrors[0].Priority != metalink.LowestPriority {
					t.Errorf("badpri's mirror at priority %d", f.Mirrors[0].Priority)
				}
			}
		},
	},
	"metalink/aria2-inline/urlpri-0.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs: priority 0 is not valid (aria2 throws; Braid tries it last)",
		text: []string{"pri 999999 http://example.org", "count as having none (tried last)"},
	},
	"metalink/aria2-inline/sigtype-none.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs: a signature without mediatype is not valid (RFC 5854 §4.2.13.1)",
		text: []string{"signature  given without a media type: it cannot be checked; the file is judged by its hashes",
			"the signature has no media type (a Metalink must give one)"},
	},
	"metalink/aria2/base_uri.xml": {
		cite: "aria2 MetalinkPostDownloadHandlerTest::testGetNextRequestGroups_withBaseUri: example.ext is relative to where the document was read from; read from a file, there is no such place",
		text: []string{`the mirror "example.ext" is a relative URL and the document's location is not known; skipped`, "mirrors    none"},
	},
	"metalink/aria2/metalink3-dirtraversal.xml": {
		cite: "aria2 MetalinkProcessorTest::testParseFile_dirtraversal: ../aria2-0.5.2.tar.bz2 is not downloaded",
		text: []string{"rejected (nothing is written for these):", "../aria2-0.5.2.tar.bz2: unsafe file name"},
	},
	"metalink/curl/test2021.metalink": {
		cite: "curl tests/data/test2021: \"log/download2021 >/dev/null\" is a missing or invalid file name",
		text: []string{"files      0 of 0 selected, 1 rejected", "log/download2021 >/dev/null: unsafe file name"},
	},
	"metalink/aria2/test.xml": {
		cite: "aria2 MetalinkProcessorTest::testParseFile: aria2-0.5.2.tar.bz2 for en-US and Linux-x86, 0.5.1 for ja-JP and Linux-m68k",
		text: []string{"language   en-US", "os         Linux-x86", "language   ja-JP"},
	},
}

// TestInspectPeerCorpus runs inspect over every document of the corpus.
func TestInspectPeerCorpus(t *testing.T) {
	t.Parallel()
	dir := peercorpus.Dir(t)
	spots := 0
	for _, name := range peercorpus.Files(t, dir, "") {
		if strings.HasSuffix(name, ".tar.gz") {
			continue // TestInspectPeerCorpusWget2Seeds
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			r := inspectAgrees(t, path)
			spot, ok := inspectSpots[name]
			if !ok {
				return
			}
			spots++
			if r == nil {
				t.Fatalf("inspect refused it; %s", spot.cite)
			}
			_, out, _ := inspectSafely(t, path)
			for _, want := range spot.text {
				if !strings.Contains(out, want) {
					t.Errorf("the text lacks %q (%s):\n%s", want, spot.cite, out)
				}
			}
			if spot.json != nil {
				spot.json(t, r)
			}
		})
	}
	if spots != len(inspectSpots) {
		t.Errorf("%d of %d spot checks ran: a spot names a document MANIFEST.tsv does not list", spots, len(inspectSpots))
	}
}

// TestInspectPeerCorpusWget2Seeds runs inspect over each of wget2's 2115
// fuzzer seeds (written to a file each, as a user would have them): never
// a panic, and a refusal is one line with exit 1.
func TestInspectPeerCorpusWget2Seeds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("2115 documents; -short skips them")
	}
	dir := peercorpus.Dir(t)
	f, err := os.Open(filepath.Join(dir, "metalink", "wget2", "fuzz-corpus.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	tmp := t.TempDir()
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, 16<<20))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, "seed.meta4")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
		code, out, errOut := inspectSafely(t, p)
		switch {
		case code == 1 && out == "" && strings.HasPrefix(errOut, "braid inspect: ") && strings.Count(errOut, "\n") == 1:
		case code == 0 && out != "":
		default:
			t.Errorf("seed %s: exit %d, stdout %q, stderr %q", h.Name, code, out, errOut)
		}
	}
	if n < 2000 {
		t.Errorf("only %d seeds; wget2's corpus has 2115", n)
	}
}
