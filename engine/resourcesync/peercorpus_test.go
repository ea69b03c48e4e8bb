package resourcesync_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/peercorpus"
	"braid/engine/resourcesync"
)

// The peer corpus's ResourceSync part is resync's (the reference
// implementation's) test data, with its origins in MANIFEST.tsv beside
// the repository (../shared/peer-corpus from its root). It is not copied
// into the repository: the test finds it there, or where BRAID_PEER_CORPUS
// says, and skips when it is absent. Every document has a row citing the
// resync test that reads it and what that test asserts; where Braid
// deliberately differs, differs argues it from the specification.

// rsCase is what Braid's reader must make of one corpus file.
type rsCase struct {
	cite    string
	fail    error // the reader must refuse it with this sentinel; nil: it parses
	check   func(t *testing.T, d *resourcesync.Document)
	differs string
}

func locs(d *resourcesync.Document) []string {
	var out []string
	for _, e := range d.Entries {
		out = append(out, e.Loc)
	}
	return out
}

func wantLocs(want ...string) func(t *testing.T, d *resourcesync.Document) {
	return func(t *testing.T, d *resourcesync.Document) {
		t.Helper()
		if got := locs(d); !slices.Equal(got, want) {
			t.Errorf("entries %q, want %q", got, want)
		}
	}
}

func both(fs ...func(t *testing.T, d *resourcesync.Document)) func(t *testing.T, d *resourcesync.Document) {
	return func(t *testing.T, d *resourcesync.Document) {
		t.Helper()
		for _, f := range fs {
			f(t, d)
		}
	}
}

func capability(want string) func(t *testing.T, d *resourcesync.Document) {
	return func(t *testing.T, d *resourcesync.Document) {
		t.Helper()
		if d.Capability != want {
			t.Errorf("capability %q, want %q", d.Capability, want)
		}
	}
}

func md5Of(d *resourcesync.Document, loc string) string {
	for _, e := range d.Entries {
		if e.Loc == loc {
			for _, h := range e.Hashes {
				if h.Type == "md5" {
					return h.Value
				}
			}
		}
	}
	return ""
}

const (
	simpleRead = "resync tests/test_examples_from_spec_v1_1.py::test_all_simple_read: the example parses"
	payload    = "resync tests/test_client.py: a resource served by the client tests (file content, not a document)"
)

var rsCases = map[string]rsCase{
	"resourcesync/resync/client/dir1/resourcelist.xml": {
		cite:  "resync tests/test_client.py::test04_read_resource_list (read_resource_list of client/dir1/resourcelist.xml): 3 resources",
		check: wantLocs("http://localhost:9999/dir1/resource1", "http://localhost:9999/dir1/resource2", "http://localhost:9999/dir1/resource3"),
	},
	"resourcesync/resync/client/dir1/resource1": {cite: payload, fail: resourcesync.ErrNotResourceSync},
	"resourcesync/resync/client/dir1/resource2": {cite: payload, fail: resourcesync.ErrNotResourceSync},
	"resourcesync/resync/client/dir1/resource3": {cite: payload, fail: resourcesync.ErrNotResourceSync},

	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_1.xml": {
		cite:  "resync test_examples_from_spec_v1_1.py::test_ex_01: a resourcelist with res1 and res2, no lastmod",
		check: both(capability("resourcelist"), wantLocs("http://example.com/res1", "http://example.com/res2")),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_2.xml": {
		cite: "resync test_examples_from_spec_v1_1.py::test_ex_02: res1 and res2 with lastmod and md5",
		check: both(wantLocs("http://example.com/res1", "http://example.com/res2"), func(t *testing.T, d *resourcesync.Document) {
			if md5Of(d, "http://example.com/res1") != "1584abdf8ebdc9802ac0c6a7402c03b6" || md5Of(d, "http://example.com/res2") != "1e0d5cb8ef6ba40c99b14c0237be735e" {
				t.Errorf("md5s %+v", d.Entries)
			}
			if got := d.Entries[0].Lastmod.Format("2006-01-02T15:04:05Z"); got != "2013-01-02T13:00:00Z" {
				t.Errorf("lastmod %s", got)
			}
		}),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_3.xml": {
		cite: "resync test_examples_from_spec_v1_1.py::test_ex_03: a changelist: res1.pdf updated, res2.pdf deleted, res3.tiff created",
		check: both(wantLocs("http://example.com/res1.pdf", "http://example.com/res2.pdf", "http://example.com/res3.tiff"), func(t *testing.T, d *resourcesync.Document) {
			var ch []string
			for _, e := range d.Entries {
				ch = append(ch, e.Change)
			}
			if !slices.Equal(ch, []string{"updated", "deleted", "created"}) {
				t.Errorf("changes %q", ch)
			}
		}),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_4.xml": {
		cite:  "resync test_examples_from_spec_v1_1.py::test_ex_04: a resource dump with one ZIP",
		check: both(capability("resourcedump"), wantLocs("http://example.com/resourcedump.zip")),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_5.xml": {
		cite: "resync test_examples_from_spec_v1_1.py::test_ex_05: a dump manifest, res1 and res2 with md5 and path /resources/res1, /resources/res2",
		check: both(wantLocs("http://example.com/res1", "http://example.com/res2"), func(t *testing.T, d *resourcesync.Document) {
			if d.Entries[0].Path != "/resources/res1" || d.Entries[1].Path != "/resources/res2" {
				t.Errorf("paths %+v", d.Entries)
			}
		}),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_6.xml": {
		cite: "resync test_examples_from_spec_v1_1.py::test_ex_06: a capability list with resourcelist, resourcedump and changelist",
		check: both(capability("capabilitylist"), func(t *testing.T, d *resourcesync.Document) {
			var caps []string
			for _, e := range d.Entries {
				caps = append(caps, e.Capability)
			}
			if !slices.Equal(caps, []string{"resourcelist", "resourcedump", "changelist"}) {
				t.Errorf("capabilities %q", caps)
			}
		}),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_7.xml": {
		cite:  "resync test_examples_from_spec_v1_1.py::test_build_ex_07: a source description listing one capability list",
		check: both(capability("description"), wantLocs("http://example.com/dataset1/capabilitylist.xml")),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_8.xml": {
		cite: "resync test_examples_from_spec_v1_1.py::test_ex_08: a resource list index, at 2013-01-03T09:00:00Z, parts 1 and 2",
		check: both(capability("resourcelist"), wantLocs("http://example.com/resourcelist-part1.xml", "http://example.com/resourcelist-part2.xml"), func(t *testing.T, d *resourcesync.Document) {
			if !d.Index || d.At.Format("2006-01-02T15:04:05Z") != "2013-01-03T09:00:00Z" {
				t.Errorf("index %v at %v", d.Index, d.At)
			}
		}),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_12.xml": {
		cite: "resync test_examples_from_spec_v1_1.py::test_ex_12: a source description of 3 capability lists",
		check: both(capability("description"), wantLocs("http://example.com/capabilitylist1.xml", "http://example.com/capabilitylist2.xml", "http://example.com/capabilitylist3.xml"), func(t *testing.T, d *resourcesync.Document) {
			if resourcesync.LinkTo(d.Entries[0].Links, "describedby") != "http://example.com/info_about_set1_of_resources.xml" {
				t.Errorf("describedby of the first: %+v", d.Entries[0].Links)
			}
		}),
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_13.xml": {cite: simpleRead, check: both(capability("capabilitylist"), func(t *testing.T, d *resourcesync.Document) {
		if len(d.Entries) != 4 {
			t.Errorf("%d entries, want 4", len(d.Entries))
		}
	})},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_14.xml": {cite: simpleRead, check: capability("resourcelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_15.xml": {cite: simpleRead, check: func(t *testing.T, d *resourcesync.Document) {
		if !d.Index || len(d.Entries) != 3 {
			t.Errorf("index %v, %d entries", d.Index, len(d.Entries))
		}
	}},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_16.xml": {cite: simpleRead, check: capability("resourcelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_17.xml": {cite: simpleRead, check: capability("resourcedump")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_18.xml": {cite: simpleRead, check: capability("resourcedump-manifest")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_19.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_20.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_21.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_22.xml": {cite: simpleRead, check: capability("changedump")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_23.xml": {cite: simpleRead, check: capability("changedump-manifest")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_24.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_25.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_26.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_27.xml": {
		cite:  simpleRead,
		check: capability("changelist"),
		differs: "the example's rs:ln hashes (\"sha-256:f4oxzx_x_…\") are placeholders, not digests; resync stores the text, " +
			"Braid skips each with a warning, since a hash that is not hex of the right length checks nothing",
	},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_28.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_29.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_30.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_31.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_32.xml": {cite: simpleRead, check: capability("changelist")},
	"resourcesync/resync/examples_from_spec_v1_1/resourcesync_ex_33.xml": {cite: simpleRead, check: capability("changelist")},

	"resourcesync/resync/find/find1/.well-known/resourcesync": {
		cite:  "resync tests/test_client.py::test05_find_resource_list (find1): the source description names ../data/capabilitylist.xml (TestPeerCorpusResyncFind follows it over HTTP)",
		check: both(capability("description"), wantLocs("../data/capabilitylist.xml")),
	},
	"resourcesync/resync/find/find1/.well-known/resourcelist.xml": {
		cite:  "resync tests/test_client.py::test05_find_resource_list (find1): a resource list whose up is find1",
		check: both(capability("resourcelist"), wantLocs()),
	},
	"resourcesync/resync/find/find1/data/capabilitylist.xml": {
		cite:  "resync tests/test_client.py::test05_find_resource_list (find1): the capability list names resourcelist.xml",
		check: both(capability("capabilitylist"), wantLocs("resourcelist.xml")),
	},
	"resourcesync/resync/find/find1/data/resourcelist.xml": {
		cite: "resync tests/test_client.py::test05_find_resource_list (find1): the resource list found, up find1",
		check: both(capability("resourcelist"), func(t *testing.T, d *resourcesync.Document) {
			if resourcesync.LinkTo(d.Links, "up") != "find1" {
				t.Errorf("up %+v", d.Links)
			}
		}),
	},
	"resourcesync/resync/sitemapindex2/sitemap.xml": {
		cite: "resync tests/test_list_base_with_index.py (sitemapindex2): an index of 3 sitemaps",
		check: func(t *testing.T, d *resourcesync.Document) {
			if !d.Index || len(d.Entries) != 3 {
				t.Errorf("index %v, %d entries", d.Index, len(d.Entries))
			}
		},
	},
	"resourcesync/resync/sitemapindex2/sitemap_mapper.xml": {
		cite:  "resync tests/test_list_base_with_index.py (sitemapindex2): the index as mapped to http://localhost/",
		check: wantLocs("http://localhost/sitemap00000.xml", "http://localhost/sitemap00001.xml", "http://localhost/sitemap00002.xml"),
	},
	"resourcesync/resync/sitemapindex2/sitemap00000.xml": {cite: "resync tests/test_list_base_with_index.py (sitemapindex2): a component sitemap", check: func(t *testing.T, d *resourcesync.Document) {
		if d.Index || len(d.Entries) != 6 {
			t.Errorf("index %v, %d entries", d.Index, len(d.Entries))
		}
	}},
	"resourcesync/resync/sitemapindex2/sitemap00001.xml": {cite: "resync tests/test_list_base_with_index.py (sitemapindex2): a component sitemap", check: func(t *testing.T, d *resourcesync.Document) {
		if d.Index || len(d.Entries) != 5 {
			t.Errorf("index %v, %d entries", d.Index, len(d.Entries))
		}
	}},
	"resourcesync/resync/sitemapindex2/sitemap00002.xml": {cite: "resync tests/test_list_base_with_index.py (sitemapindex2): a component sitemap", check: func(t *testing.T, d *resourcesync.Document) {
		if d.Index || len(d.Entries) != 6 {
			t.Errorf("index %v, %d entries", d.Index, len(d.Entries))
		}
	}},

	"resourcesync/resync-inline/illformed-notxml.xml": {
		cite: "resync tests/test_sitemap.py::test_15_parse_illformed ('not xml'): ParseError", fail: resourcesync.ErrNotResourceSync,
	},
	"resourcesync/resync-inline/illformed-unclosed.xml": {
		cite: "resync tests/test_sitemap.py::test_15_parse_illformed (<url> closed by </urlset>): ParseError", fail: resourcesync.ErrNotResourceSync,
	},
	"resourcesync/resync-inline/other-namespace.xml": {
		cite: "resync tests/test_sitemap.py::test_16_parse_valid_xml_but_other (a urlset of another namespace): SitemapParseError", fail: resourcesync.ErrNotResourceSync,
	},
	"resourcesync/resync-inline/other-root.xml": {
		cite: "resync tests/test_sitemap.py::test_16_parse_valid_xml_but_other (root <other>): SitemapParseError", fail: resourcesync.ErrNotResourceSync,
	},
	"resourcesync/resync-inline/multi-loc.xml": {
		cite: "resync tests/test_sitemap.py::test_12_parse_multi_loc (two <loc>s in one <url>): SitemapParseError",
		check: func(t *testing.T, d *resourcesync.Document) {
			if len(d.Entries) != 0 {
				t.Errorf("entries %q; the entry with two <loc>s must not be taken (not its last <loc> either)", locs(d))
			}
			if !slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "has 2 <loc>s") }) {
				t.Errorf("no warning: %q", d.Warnings)
			}
		},
		differs: "resync refuses the whole document; Braid skips only that entry, with a warning, and reads the others. " +
			"The sitemap protocol (which ResourceSync 1.1 §4 builds on) gives each <url> exactly one <loc>, so the entry " +
			"is broken and no guess between its two resources is safe; the other entries are not",
	},
	"resourcesync/resync-inline/empty-loc.xml": {
		cite: "resync tests/test_sitemap.py::test_12_parse_multi_loc (an empty <loc>): SitemapParseError",
		check: func(t *testing.T, d *resourcesync.Document) {
			if len(d.Entries) != 0 || !slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "without <loc>") }) {
				t.Errorf("entries %q warnings %q", locs(d), d.Warnings)
			}
		},
		differs: "skipped with a warning rather than refusing the document, as for two <loc>s",
	},
	"resourcesync/resync-inline/two-md.xml": {
		cite: "resync tests/test_sitemap.py::test_14_parse_multi (two document-level <rs:md>): SitemapParseError",
		check: func(t *testing.T, d *resourcesync.Document) {
			if !slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "more than one <rs:md>") }) {
				t.Errorf("no warning: %q", d.Warnings)
			}
			if d.Capability != "resourcelist" || len(d.Entries) != 1 {
				t.Errorf("capability %q entries %q", d.Capability, locs(d))
			}
		},
		differs: "ResourceSync 1.1 §5 gives a document one rs:md; Braid uses the first with a warning instead of refusing " +
			"the list, so a source that repeats it (here identically) still syncs",
	},
	"resourcesync/resync-inline/junk-ignored.xml": {
		cite:  "resync tests/test_sitemap.py::test_11_parse_xml_error (unknown junk elements are ignored): 1 resource",
		check: both(capability("resourcelist"), wantLocs("/whale")),
	},
	"resourcesync/resync-inline/no-capability.xml": {
		cite:  "resync tests/test_resource_list.py::test31_parse_no_capability: 1 resource, read as a resource list",
		check: both(capability(""), wantLocs("http://example.com/res1")),
		// TestPeerCorpusResyncCapabilities shows the fetcher takes it as a Resource List.
	},
	"resourcesync/resync-inline/bad-capability.xml": {
		cite:  "resync tests/test_resource_list.py::test32_parse_bad_capability: an error (TestPeerCorpusResyncCapabilities: the fetcher refuses it with ErrCapability)",
		check: capability("bad_capability"),
	},
	"resourcesync/resync-inline/capabilitylist-parse.xml": {
		cite: "resync tests/test_capability_list.py::test04_parse: a capability list with one resourcelist capability",
		check: both(capability("capabilitylist"), wantLocs("http://example.org/resourcelist.xml"), func(t *testing.T, d *resourcesync.Document) {
			if d.Entries[0].Capability != "resourcelist" {
				t.Errorf("entry capability %q", d.Entries[0].Capability)
			}
		}),
		differs: "its from=\"2013-02-07T22:39:00\" has no time zone, which W3C Datetime (the sitemap protocol's format) " +
			"requires with a time; Braid ignores it with a warning, resync keeps the text",
	},
}

// TestPeerCorpusResourceSync reads every ResourceSync file of the peer
// corpus and holds Braid's reader to what resync's tests assert of it.
func TestPeerCorpusResourceSync(t *testing.T) {
	dir := peercorpus.Dir(t)
	seen := map[string]bool{}
	for _, name := range peercorpus.Files(t, dir, "resourcesync/") {
		seen[name] = true
		c, ok := rsCases[name]
		if !ok {
			t.Errorf("%s has no row in rsCases: say what resync's tests assert of it", name)
			continue
		}
		t.Run(strings.TrimPrefix(name, "resourcesync/"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			var d *resourcesync.Document
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				d, err = resourcesync.Parse(bytes.NewReader(data))
			}()
			if c.fail != nil {
				if !errors.Is(err, c.fail) || !strings.HasPrefix(err.Error(), "resourcesync: line ") {
					t.Fatalf("error %v, want %v with its line; %s", err, c.fail, c.cite)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v; %s", err, c.cite)
			}
			c.check(t, d)
		})
	}
	for name := range rsCases {
		if !seen[name] {
			t.Errorf("rsCases has a row for %s, which MANIFEST.tsv does not list", name)
		}
	}
}

// TestPeerCorpusResyncFind serves resync's find1 tree over HTTP, as its
// test05_find_resource_list does, and has Braid discover the resource
// list from the site's root: the Source Description at
// /.well-known/resourcesync names ../data/capabilitylist.xml, which names
// resourcelist.xml, whose relative <loc> a_resource is the one resource.
func TestPeerCorpusResyncFind(t *testing.T) {
	dir := peercorpus.Dir(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(dir, "resourcesync", "resync", "find", "find1"))))
	defer srv.Close()
	f := &resourcesync.Fetcher{HTTP: srv.Client()}
	sets, err := f.Discover(context.Background(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 1 || sets[0].ResourceList != srv.URL+"/data/resourcelist.xml" {
		t.Fatalf("sets %+v, want the resource list %s/data/resourcelist.xml", sets, srv.URL)
	}
	doc, err := f.List(context.Background(), sets[0].ResourceList)
	if err != nil {
		t.Fatal(err)
	}
	if got := locs(doc); !slices.Equal(got, []string{srv.URL + "/data/a_resource"}) {
		t.Errorf("resources %q: the relative <loc> a_resource resolves against the list's address", got)
	}
	base, err := resourcesync.Base(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	rs, refused := resourcesync.Resources(doc.Entries, base)
	if len(rs) != 1 || rs[0].File.Name != "data/a_resource" || len(refused) != 0 {
		t.Errorf("resources %+v refused %+v", rs, refused)
	}
}

// TestPeerCorpusResyncCapabilities: resync's ResourceList reads a sitemap
// without a capability as a resource list (test31_parse_no_capability)
// and refuses "bad_capability" (test32_parse_bad_capability); Braid's
// fetcher, served those documents, does the same.
func TestPeerCorpusResyncCapabilities(t *testing.T) {
	dir := peercorpus.Dir(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(dir, "resourcesync", "resync-inline"))))
	defer srv.Close()
	f := &resourcesync.Fetcher{HTTP: srv.Client()}
	sets, err := f.Discover(context.Background(), srv.URL+"/no-capability.xml")
	if err != nil || len(sets) != 1 || sets[0].ResourceList != srv.URL+"/no-capability.xml" {
		t.Errorf("no capability: sets %+v, %v; want it read as a Resource List", sets, err)
	}
	_, err = f.Discover(context.Background(), srv.URL+"/bad-capability.xml")
	if !errors.Is(err, resourcesync.ErrCapability) || !strings.Contains(err.Error(), "bad_capability") {
		t.Errorf("bad capability: %v, want ErrCapability naming it", err)
	}
}
