package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/resolve"
)

const (
	twoFiles = "testdata/inspect/two-files.meta4"
	nero     = "testdata/inspect/nero.metalink"
)

// inspectRun runs 'braid inspect args' with the given defaults and returns
// the exit status and both outputs.
func inspectRun(t *testing.T, defaults metalink.Prefs, args ...string) (int, string, string) {
	t.Helper()
	return inspectRunOpts(t, defaults, resolve.Options{}, args...)
}

func inspectRunOpts(t *testing.T, defaults metalink.Prefs, opts resolve.Options, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runInspect(context.Background(), args, &stdout, &stderr, defaults, opts)
	return code, stdout.String(), stderr.String()
}

// inspectJSON runs inspect --json and decodes the report.
func inspectJSON(t *testing.T, defaults metalink.Prefs, args ...string) inspectReport {
	t.Helper()
	code, out, errOut := inspectRun(t, defaults, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("inspect %q: exit %d, stderr %s", args, code, errOut)
	}
	var r inspectReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("inspect %q: JSON does not decode into the schema: %v\n%s", args, err, out)
	}
	return r
}

func mirrorURLs(f inspectFile) []string {
	var out []string
	for _, m := range f.Mirrors {
		out = append(out, m.URL)
	}
	return out
}

func TestInspectJSON(t *testing.T) {
	t.Parallel()
	r := inspectJSON(t, metalink.Prefs{}, "--lang", "en", "--os", "linux/amd64", "--location", "fr", twoFiles)

	if r.Version != 1 || r.MetalinkVersion != 4 || r.Source != twoFiles || r.Kind != "metalink_file" || r.Server != nil {
		t.Errorf("header: version %d, metalink_version %d, source %q, kind %q, server %v",
			r.Version, r.MetalinkVersion, r.Source, r.Kind, r.Server)
	}
	if r.Generator != "MirrorBrain/2.11" || r.Origin != "http://example.com/tool.meta4" || !r.Dynamic {
		t.Errorf("generator %q origin %q dynamic %v", r.Generator, r.Origin, r.Dynamic)
	}
	if r.Published == nil || *r.Published != "2009-05-15T12:23:23Z" || r.Updated != nil {
		t.Errorf("published %v, updated %v", r.Published, r.Updated)
	}
	if !slices.Equal(r.Prefs.Languages, []string{"en"}) || !slices.Equal(r.Prefs.OS, []string{"linux/amd64"}) ||
		!slices.Equal(r.Prefs.Locations, []string{"FR"}) {
		t.Errorf("prefs %+v", r.Prefs)
	}
	if len(r.Files) != 2 || r.Selected != 1 {
		t.Fatalf("%d files, %d selected; want 2 files, 1 selected", len(r.Files), r.Selected)
	}

	tool := r.Files[0]
	if tool.Name != "tool-1.0-linux-x64.tar.gz" || tool.Size != 3145728 || !tool.Selected || tool.Reason != "" {
		t.Errorf("first file: %+v", tool)
	}
	if tool.Pieces == nil || tool.Pieces.Count != 3 || tool.Pieces.Length != 1<<20 || tool.Pieces.Type != "sha-1" {
		t.Errorf("pieces: %+v", tool.Pieces)
	}
	if len(tool.Hashes) != 1 || tool.Hashes[0].Type != "sha-256" {
		t.Errorf("hashes: %+v", tool.Hashes)
	}
	// The French mirror (the user's country) first, though its priority
	// is 2; then the others by priority; no priority last.
	wantOrder := []string{
		"http://fr.example.com/tool.tar.gz",
		"ftp://de.example.com/tool.tar.gz",
		"http://us.example.com/tool.tar.gz",
		"http://slow.example.org/tool.tar.gz",
	}
	if got := mirrorURLs(tool); !slices.Equal(got, wantOrder) {
		t.Errorf("mirror order %q, want %q", got, wantOrder)
	}
	if m := tool.Mirrors[0]; !m.Local || m.Location != "FR" || m.Priority != 2 {
		t.Errorf("French mirror: %+v", m)
	}
	if m := tool.Mirrors[3]; m.Local || m.Priority != metalink.LowestPriority {
		t.Errorf("mirror without priority: %+v", m)
	}
	if len(tool.MetaURLs) != 1 || tool.MetaURLs[0].MediaType != "torrent" || tool.MetaURLs[0].Priority != 3 {
		t.Errorf("metaurls: %+v", tool.MetaURLs)
	}
	if tool.Publisher == nil || tool.Publisher.Name != "Example Org" {
		t.Errorf("publisher: %+v", tool.Publisher)
	}

	setup := r.Files[1]
	wantWhy := "for Windows-x64, not linux/amd64; language de does not match en"
	if setup.Selected || setup.Reason != wantWhy {
		t.Errorf("second file: selected %v, reason %q; want %q", setup.Selected, setup.Reason, wantWhy)
	}
	if len(r.Rejected) != 1 || r.Rejected[0].Name != "../../.bashrc" || r.Rejected[0].Reason == "" {
		t.Errorf("rejected: %+v", r.Rejected)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "whirlpool") {
		t.Errorf("warnings: %q, want one about the whirlpool hash", r.Warnings)
	}
}

// TestInspectJSONKeys pins the schema's key names: scripts depend on them.
func TestInspectJSONKeys(t *testing.T) {
	t.Parallel()
	_, out, _ := inspectRun(t, metalink.Prefs{}, "--json", "--lang=", "--os=", twoFiles)
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		slices.Sort(k)
		return k
	}
	tests := []struct {
		name string
		obj  map[string]any
		want []string
	}{
		{"report", raw, []string{"archive", "dynamic", "files", "generator", "kind", "metalink_version", "notes", "origin", "prefs",
			"published", "rejected", "selected", "server", "source", "torrent", "updated", "version", "warnings"}},
		{"file", raw["files"].([]any)[0].(map[string]any), []string{"description", "hashes", "identity",
			"languages", "license", "metaurls", "mirrors", "name", "os", "pieces", "publisher", "reason",
			"selected", "signature", "size", "version"}},
		{"mirror", raw["files"].([]any)[0].(map[string]any)["mirrors"].([]any)[0].(map[string]any),
			[]string{"local", "location", "max_connections", "priority", "url"}},
		{"metaurl", raw["files"].([]any)[0].(map[string]any)["metaurls"].([]any)[0].(map[string]any),
			[]string{"media_type", "name", "priority", "url"}},
		{"pieces", raw["files"].([]any)[0].(map[string]any)["pieces"].(map[string]any),
			[]string{"count", "length", "type"}},
		{"prefs", raw["prefs"].(map[string]any), []string{"languages", "locations", "os"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keys(tt.obj); !slices.Equal(got, tt.want) {
				t.Errorf("keys %q, want %q", got, tt.want)
			}
		})
	}
	if v := raw["version"]; v != float64(1) {
		t.Errorf("version = %v, want 1", v)
	}
	// Empty lists are [], not null.
	if l, ok := raw["prefs"].(map[string]any)["languages"].([]any); !ok || len(l) != 0 {
		t.Errorf("prefs.languages = %#v, want []", raw["prefs"].(map[string]any)["languages"])
	}
}

func TestInspectText(t *testing.T) {
	t.Parallel()
	code, out, errOut := inspectRun(t, metalink.Prefs{}, "--lang", "en", "--os", "linux/amd64", "--location", "FR", twoFiles)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Each want must appear, in this order.
	wants := []string{
		"source     " + twoFiles,
		"format     Metalink 4, written by MirrorBrain/2.11",
		"origin     http://example.com/tool.meta4 (updates published there)",
		"selecting  language en; OS linux/amd64; mirrors in FR first, then by priority",
		"files      1 of 2 selected, 1 rejected",
		"[x] tool-1.0-linux-x64.tar.gz",
		"    size       3145728 bytes (3.0 MiB)",
		"    sha-256    2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
		"    pieces     3 of 1.0 MiB (sha-1)",
		"    mirrors      1. FR  pri 2      http://fr.example.com/tool.tar.gz",
		"                 2. DE  pri 1      ftp://de.example.com/tool.tar.gz",
		"                 3. US  pri 2      http://us.example.com/tool.tar.gz",
		"                 4. --  pri 999999 http://slow.example.org/tool.tar.gz",
		"    metaurls   torrent  pri 3      http://example.com/tool.tar.gz.torrent",
		"[ ] setup-1.0-de.exe",
		"    not selected: for Windows-x64, not linux/amd64; language de does not match en",
		"    about      Installer (German)",
		"    whirlpool  19fa61d75522a4669b44e39c1d2e1726c530232130d407f89afee0964997f7a7",
		"rejected (nothing is written for these):",
		"    ../../.bashrc: ",
		"warnings:",
		"whirlpool",
	}
	rest := out
	for _, w := range wants {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("output lacks %q after the previous lines:\n%s", w, out)
		}
		rest = rest[i+len(w):]
	}
}

func TestInspectV3MirrorOrder(t *testing.T) {
	t.Parallel()
	// The user's country first, then Metalink 3 preference (higher
	// first).
	r := inspectJSON(t, metalink.Prefs{}, "--lang", "de", "--os", "windows/386", "--location", "de", nero)
	if r.MetalinkVersion != 3 {
		t.Errorf("metalink_version %d, want 3", r.MetalinkVersion)
	}
	var selected []string
	for _, f := range r.Files {
		if f.Selected {
			selected = append(selected, f.Name)
		}
	}
	if !slices.Equal(selected, []string{"Nero-7.0.1.4b_deu.exe"}) {
		t.Errorf("selected %q, want only the German file", selected)
	}
	tests := []struct {
		file string
		want []string
	}{
		{"Nero-7.0.1.4b_eng.exe", []string{
			"ftp://nero-mirror.com/software/Nero7/Nero-7.0.1.4b_eng.exe",
			"ftp://nero-mirror.hspeed.net/software/Nero7/Nero-7.0.1.4b_eng.exe",
			"ftp://ftp2.usw.nero.com/software/nero7/Nero-7.0.1.4b_eng.exe",
			"http://httpdl2.usw.nero.com/software/nero7/Nero-7.0.1.4b_eng.exe",
		}},
		{"Nero-7.0.1.4b_deu.exe", []string{
			"http://httpdl2.de.nero.com/software/nero7/Nero-7.0.1.4b_deu.exe",
			"ftp://ftp2.usw.nero.com/software/nero7/Nero-7.0.1.4b_deu.exe",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			for _, f := range r.Files {
				if f.Name == tt.file {
					if got := mirrorURLs(f); !slices.Equal(got, tt.want) {
						t.Errorf("mirrors %q, want %q", got, tt.want)
					}
					return
				}
			}
			t.Fatalf("no file %s", tt.file)
		})
	}
}

func TestInspectDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		defaults metalink.Prefs
		args     []string
		selected []string
	}{
		{"defaults apply", metalink.Prefs{Languages: []string{"de-DE"}, OS: []string{"windows/amd64"}}, nil,
			[]string{"setup-1.0-de.exe"}},
		{"flag replaces default", metalink.Prefs{Languages: []string{"de-DE"}, OS: []string{"windows/amd64"}},
			[]string{"--lang", "en-GB", "--os", "Linux-x86_64"}, []string{"tool-1.0-linux-x64.tar.gz"}},
		{"empty flag means any", metalink.Prefs{Languages: []string{"fr"}, OS: []string{"darwin/arm64"}},
			[]string{"--lang=", "--os="}, []string{"tool-1.0-linux-x64.tar.gz", "setup-1.0-de.exe"}},
		// The defaults never leave a document with nothing selected.
		{"nothing matches the defaults", metalink.Prefs{Languages: []string{"fr"}, OS: []string{"darwin/arm64"}}, nil,
			[]string{"tool-1.0-linux-x64.tar.gz", "setup-1.0-de.exe"}},
		// Flags are filters.
		{"nothing matches the flags", metalink.Prefs{}, []string{"--lang", "fr"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := inspectJSON(t, tt.defaults, append(tt.args, twoFiles)...)
			var got []string
			for _, f := range r.Files {
				if f.Selected {
					got = append(got, f.Name)
				}
			}
			if !slices.Equal(got, tt.selected) || r.Selected != len(tt.selected) {
				t.Errorf("selected %q (count %d), want %q", got, r.Selected, tt.selected)
			}
		})
	}
}

func TestInspectFlagsAfterSource(t *testing.T) {
	t.Parallel()
	code, out, errOut := inspectRun(t, metalink.Prefs{}, twoFiles, "--json", "--lang", "de")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r inspectReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !slices.Equal(r.Prefs.Languages, []string{"de"}) {
		t.Errorf("prefs.languages %q, want [de]", r.Prefs.Languages)
	}
}

func TestInspectExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	html := write("page.meta4", "<html><body>Not found</body></html>")
	absTwoFiles, err := filepath.Abs(twoFiles)
	if err != nil {
		t.Fatal(err)
	}
	truncated := write("cut.meta4", `<?xml version="1.0"?><metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="a">`)
	list := write("resource list.xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist"/><url><loc>http://example.com/a</loc></url></urlset>`)
	quoted := "'" + list + "'" // a path with a space, as a shell wants it
	if runtime.GOOS == "windows" {
		quoted = `"` + list + `"`
	}

	tests := []struct {
		name    string
		args    []string
		code    int
		errWant string
	}{
		{"no source", nil, 2, "want one SOURCE"},
		{"two sources", []string{twoFiles, nero}, 2, "want one SOURCE, got 2"},
		{"unknown flag", []string{"--frobnicate", twoFiles}, 2, "frobnicate"},
		{"bad language", []string{"--lang", "de,%%", twoFiles}, 2, `--lang "%%"`},
		{"bad location", []string{"--location", "Germany", twoFiles}, 2, `--location "Germany"`},
		{"help", []string{"-h"}, 0, "Usage: braid inspect"},
		{"missing file", []string{filepath.Join(dir, "nope.meta4")}, 1, "nope.meta4"},
		{"not a metalink", []string{html}, 1, "page.meta4"},
		{"truncated", []string{truncated}, 1, "cut.meta4"},
		{"a ResourceSync list", []string{list}, 1, "it is a ResourceSync document, not a metalink; braid sync " + quoted + " -d DIR keeps a folder a copy of it"},
		{"unsupported scheme", []string{"gopher://127.0.0.1/x.meta4"}, 1, "gopher"},
		{"ok", []string{twoFiles}, 0, ""},
		{"file URL", []string{"file://" + filepath.ToSlash(absTwoFiles)}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := inspectRun(t, metalink.Prefs{}, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			if tt.errWant != "" && !strings.Contains(errOut, tt.errWant) {
				t.Errorf("stderr %q lacks %q", errOut, tt.errWant)
			}
			if tt.errWant == "" && errOut != "" {
				t.Errorf("unexpected stderr %q", errOut)
			}
		})
	}
}

func TestInspectHTTP(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(twoFiles)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/tool.meta4", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/metalink4+xml")
		w.Write(doc)
	})
	mux.HandleFunc("/gone.meta4", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	})
	mux.HandleFunc("/broken.meta4", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><html><title>Downloads</title></html>")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	local := inspectJSON(t, metalink.Prefs{}, "--lang", "en", twoFiles)
	remote := inspectJSON(t, metalink.Prefs{}, "--lang", "en", srv.URL+"/tool.meta4")
	if local.Kind != "metalink_file" || remote.Kind != "metalink_url" {
		t.Errorf("kinds %q and %q, want metalink_file and metalink_url", local.Kind, remote.Kind)
	}
	local.Source, remote.Source, local.Kind, remote.Kind = "", "", "", ""
	lj, _ := json.Marshal(local)
	rj, _ := json.Marshal(remote)
	if !bytes.Equal(lj, rj) {
		t.Errorf("the document over HTTP reads differently:\nlocal  %s\nremote %s", lj, rj)
	}

	tests := []struct {
		name    string
		url     string
		errWant string
	}{
		{"status", srv.URL + "/gone.meta4", "410"},
		{"not a metalink", srv.URL + "/broken.meta4", "broken.meta4: metalink"},
		{"refused connection", "http://127.0.0.1:1/x.meta4", "127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := inspectRun(t, metalink.Prefs{}, tt.url)
			if code != 1 || !strings.Contains(errOut, tt.errWant) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, tt.errWant)
			}
		})
	}
}

// TestInspectPlainURL inspects the plain URL of a file whose server names
// mirrors and a digest (RFC 6249), as the resolver reads them.
func TestInspectPlainURL(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("braid "), 1000)
	sum := sha256.Sum256(data)
	m1 := mirrortest.New(t, data, mirrortest.Path("/pub/tool.bin"))
	m2 := mirrortest.New(t, data, mirrortest.Path("/pub/tool.bin"))
	origin := mirrortest.New(t, data,
		mirrortest.Path("/dist/tool.bin"),
		mirrortest.Header("ETag", `"v1"`),
		mirrortest.Header("Digest", "sha-256="+base64.StdEncoding.EncodeToString(sum[:])),
		mirrortest.Header("Link", fmt.Sprintf(`<%s>; rel=duplicate; pri=3; geo=us, <%s>; rel=duplicate; pri=3; geo=de`, m1.URL(), m2.URL())),
	)

	r := inspectJSON(t, metalink.Prefs{}, "--lang=", "--os=", "--location", "de", origin.URL())
	if r.Kind != "plain_url" || r.MetalinkVersion != 0 || r.Server == nil {
		t.Fatalf("kind %q, metalink_version %d, server %+v", r.Kind, r.MetalinkVersion, r.Server)
	}
	if r.Server.ETag != `"v1"` || r.Server.Size != int64(len(data)) || !r.Server.Ranges ||
		len(r.Server.Digests) != 1 || r.Server.Digests[0].Value != hex.EncodeToString(sum[:]) {
		t.Errorf("server %+v", r.Server)
	}
	if len(r.Files) != 1 || r.Files[0].Name != "tool.bin" || !r.Files[0].Selected {
		t.Fatalf("files %+v", r.Files)
	}
	// The German mirror (the user's country) first, then the origin
	// (priority 1) before the American mirror (priority 3).
	want := []string{m2.URL(), origin.URL(), m1.URL()}
	if got := mirrorURLs(r.Files[0]); !slices.Equal(got, want) {
		t.Errorf("mirrors %q, want %q", got, want)
	}

	code, out, errOut := inspectRun(t, metalink.Prefs{}, origin.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"format     plain URL, described by its server", `(byte ranges, ETag "v1")`, "[x] tool.bin"} {
		if !strings.Contains(out, w) {
			t.Errorf("text output lacks %q:\n%s", w, out)
		}
	}
}

// TestInspectTooLarge: a document over the size limit is refused with a
// clear message, from a file and over HTTP.
func TestInspectTooLarge(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(twoFiles)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(doc)
	}))
	defer srv.Close()
	tests := []struct {
		name   string
		source string
		limit  int64
		code   int
	}{
		{"file over", twoFiles, int64(len(doc)) - 1, 1},
		{"file at limit", twoFiles, int64(len(doc)), 0},
		{"URL over", srv.URL + "/x.meta4", int64(len(doc)) - 1, 1},
		{"URL at limit", srv.URL + "/x.meta4", int64(len(doc)), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := resolve.Options{Limits: metalink.Limits{MaxBytes: tt.limit}}
			code, _, errOut := inspectRunOpts(t, metalink.Prefs{}, opts, "--json", tt.source)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			if tt.code == 1 && !strings.Contains(errOut, "larger than") {
				t.Errorf("stderr %q does not say the document is too large", errOut)
			}
		})
	}
}

func TestInspectClean(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain name.iso", "plain name.iso"},
		{"ünïcödé 名前", "ünïcödé 名前"},
		{"evil\x1b[2Jname", `evil\x1b[2Jname`},
		{"line\rover", `line\rover`},
		{"c1\u009bcontrol", `c1\u009bcontrol`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := inspectClean(tt.in); got != tt.want {
				t.Errorf("inspectClean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestInspectShorten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"  two\n lines\t here ", 20, "two lines here"},
		{"exactly ten", 11, "exactly ten"},
		{"one word too long", 10, "one word …"},
		{"äöüäöüäöüäöü", 5, "äöüä…"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := inspectShorten(tt.in, tt.n); got != tt.want {
				t.Errorf("inspectShorten(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

// TestInspectSaysWhyDefaultsDidNotFilter: when no file is for the running
// system, the OS default selects nothing away, and inspect says why.
func TestInspectSaysWhyDefaultsDidNotFilter(t *testing.T) {
	t.Parallel()
	defaults := metalink.Prefs{Languages: []string{"en"}, OS: []string{"darwin/arm64"}}
	code, out, errOut := inspectRun(t, defaults, twoFiles)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "note       no file is for this system (darwin/arm64), so the OS does not narrow the choice") {
		t.Errorf("output does not say why the OS did not filter:\n%s", out)
	}
	r := inspectJSON(t, defaults, twoFiles)
	if r.Selected != 2 || len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "darwin/arm64") {
		t.Errorf("selected %d, notes %q; want both files and a note on the OS", r.Selected, r.Notes)
	}
}

// TestInspectLanguageFallback: with a locale whose language no build is
// in (a Chinese locale; builds in de and en), the defaults take the
// English build rather than none or all, and inspect says so; with no
// English build, the first listed. A --lang the user gives stays a filter.
func TestInspectLanguageFallback(t *testing.T) {
	t.Parallel()
	doc := func(langs ...string) string {
		var b strings.Builder
		b.WriteString(`<metalink xmlns="urn:ietf:params:xml:ns:metalink">`)
		for _, l := range langs {
			fmt.Fprintf(&b, `<file name="app-%s.exe"><identity>App</identity><language>%s</language><url>http://example.org/app-%s.exe</url></file>`, l, l, l)
		}
		b.WriteString(`<file name="NOTES.txt"><url>http://example.org/NOTES.txt</url></file></metalink>`)
		p := filepath.Join(t.TempDir(), "app.meta4")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	zh := metalink.Prefs{Languages: []string{"zh-CN", "zh"}}
	tests := []struct {
		name  string
		doc   string
		args  []string
		want  []string // selected files
		note  string   // in the text output; "" for no note
		notOK string   // a reason a left-out file gives
	}{
		{"English before the first listed", doc("de", "en"), nil,
			[]string{"app-en.exe", "NOTES.txt"}, "no file of App is in zh-CN, zh, so the English one is taken; --lang chooses",
			"language de: no file is in zh-CN, zh, and the English one is taken instead"},
		{"no English: the first listed", doc("fr", "de"), nil,
			[]string{"app-fr.exe", "NOTES.txt"}, "so the first listed (fr) is taken", ""},
		{"a given language is a filter", doc("de", "en"), []string{"--lang", "zh"},
			[]string{"NOTES.txt"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, tc.args...), tc.doc)
			code, out, errOut := inspectRun(t, zh, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if tc.note != "" && !strings.Contains(out, "\nnote       no file of App is in zh-CN, zh, so ") || !strings.Contains(out, tc.note) {
				t.Errorf("output does not say %q:\n%s", tc.note, out)
			}
			if tc.notOK != "" && !strings.Contains(out, "not selected: "+tc.notOK) {
				t.Errorf("output does not give the reason %q:\n%s", tc.notOK, out)
			}
			r := inspectJSON(t, zh, args...)
			var got []string
			for _, f := range r.Files {
				if f.Selected {
					got = append(got, f.Name)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("selected %q, want %q", got, tc.want)
			}
			if (tc.note != "") != (len(r.Notes) > 0) {
				t.Errorf("notes %q", r.Notes)
			}
		})
	}
}

// TestInspectSignatureKinds: inspect says when a file's signature cannot be
// checked (no media type, not OpenPGP), and that its hashes decide.
func TestInspectSignatureKinds(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "sig.meta4")
	doc := `<metalink xmlns="urn:ietf:params:xml:ns:metalink">` +
		`<file name="a"><url>http://x/a</url><signature>junk</signature></file>` +
		`<file name="b"><url>http://x/b</url><signature mediatype="application/pkcs7-signature">junk</signature></file>` +
		`<file name="c"><url>http://x/c</url><signature mediatype="application/pgp-signature">junk</signature></file></metalink>`
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := inspectRun(t, metalink.Prefs{}, p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"signature  given without a media type: it cannot be checked; the file is judged by its hashes",
		"signature  application/pkcs7-signature: Braid cannot check it; the file is judged by its hashes",
		"signature  application/pgp-signature\n",
		`file "a" (line 1): the signature has no media type`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
