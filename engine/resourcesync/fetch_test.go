package resourcesync_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"braid/engine/resourcesync"
	"braid/engine/resourcesync/rstest"
)

// TestDiscover finds a source's sets from its base URL (the well-known
// Source Description), its Capability List, and a Resource List named
// directly (through its rel="up" link).
func TestDiscover(t *testing.T) {
	src := rstest.New(t)
	src.Put("/x", []byte("x"))
	base := strings.TrimSuffix(src.URL(), "/")
	want := resourcesync.Set{CapabilityList: base + "/capabilitylist.xml", ResourceList: base + "/resourcelist.xml", ChangeList: base + "/changelist.xml"}
	var f resourcesync.Fetcher
	for _, from := range []string{src.URL(), base + "/capabilitylist.xml", base + "/resourcelist.xml", base + resourcesync.WellKnown} {
		sets, err := f.Discover(context.Background(), from)
		if err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		if len(sets) != 1 || sets[0] != want {
			t.Errorf("%s: %+v, want %+v", from, sets, want)
		}
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `<`+base+`/capabilitylist.xml>; rel="resourcesync"`)
		fmt.Fprint(w, "<html><body>a page of the collection</body></html>")
	}))
	defer page.Close()
	sets, err := f.Discover(context.Background(), page.URL+"/page.html")
	if err != nil || len(sets) != 1 || sets[0] != want {
		t.Errorf("through a Link header: %+v, %v", sets, err)
	}
	if _, err := f.Discover(context.Background(), base+"/x"); err == nil {
		t.Error("a resource that is not a ResourceSync document was discovered as a source")
	}
	doc, err := f.Resolve(context.Background(), src.URL())
	if err != nil || len(doc.Files) != 1 || doc.Files[0].Name != "x" || doc.Files[0].Size != 1 {
		t.Fatalf("Resolve: %+v, %v", doc, err)
	}
}

// docs serves fixed documents by path.
func docs(t *testing.T, m map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, strings.ReplaceAll(d, "BASE", "http://"+r.Host))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const (
	urlset  = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
	smindex = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
)

// TestListIndex gathers a Resource List Index's lists, nested one level,
// and refuses loops and indexes nested beyond the bound.
func TestListIndex(t *testing.T) {
	srv := docs(t, map[string]string{
		"/rl.xml":   smindex + `<rs:md capability="resourcelist" at="2020-01-01T00:00:00Z"/><sitemap><loc>BASE/p1.xml</loc></sitemap><sitemap><loc>/sub.xml</loc></sitemap></sitemapindex>`,
		"/sub.xml":  smindex + `<rs:md capability="resourcelist"/><sitemap><loc>BASE/p2.xml</loc></sitemap></sitemapindex>`,
		"/p1.xml":   urlset + `<rs:md capability="resourcelist"/><url><loc>BASE/a</loc></url></urlset>`,
		"/p2.xml":   urlset + `<rs:md capability="resourcelist"/><url><loc>BASE/b</loc></url><url><loc>BASE/c</loc></url></urlset>`,
		"/loop.xml": smindex + `<rs:md capability="resourcelist"/><sitemap><loc>BASE/loop.xml</loc></sitemap></sitemapindex>`,
	})
	f := resourcesync.Fetcher{}
	d, err := f.List(context.Background(), srv.URL+"/rl.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) != 3 || d.Index || !d.At.Equal(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("gathered %+v", d)
	}
	if _, err := f.List(context.Background(), srv.URL+"/loop.xml"); !errors.Is(err, resourcesync.ErrIndexDepth) {
		t.Errorf("a loop: %v", err)
	}
	f.MaxIndexDepth = 1
	if _, err := f.List(context.Background(), srv.URL+"/rl.xml"); !errors.Is(err, resourcesync.ErrIndexDepth) {
		t.Errorf("nesting beyond the bound: %v", err)
	}
	f = resourcesync.Fetcher{MaxEntries: 2}
	if _, err := f.List(context.Background(), srv.URL+"/rl.xml"); !errors.Is(err, resourcesync.ErrTooMany) {
		t.Errorf("more entries than the bound: %v", err)
	}
}

// TestChangeListIndex reads only the Change Lists of an index that may
// hold changes since the time asked for.
func TestChangeListIndex(t *testing.T) {
	srv := docs(t, map[string]string{
		"/cl.xml": smindex + `<rs:md capability="changelist" from="2020-01-01T00:00:00Z"/>
<sitemap><loc>BASE/old.xml</loc><rs:md from="2020-01-01T00:00:00Z" until="2020-01-02T00:00:00Z"/></sitemap>
<sitemap><loc>BASE/new.xml</loc><rs:md from="2020-01-02T00:00:00Z"/></sitemap></sitemapindex>`,
		"/new.xml": urlset + `<rs:md capability="changelist" from="2020-01-02T00:00:00Z"/>
<url><loc>BASE/a</loc><lastmod>2020-01-02T05:00:00Z</lastmod><rs:md change="updated"/></url>
<url><loc>BASE/b</loc><lastmod>2020-01-03T05:00:00Z</lastmod><rs:md change="deleted"/></url></urlset>`,
	})
	var f resourcesync.Fetcher
	since := time.Date(2020, 1, 2, 1, 0, 0, 0, time.UTC)
	lists, err := f.ChangeLists(context.Background(), srv.URL+"/cl.xml", since)
	if err != nil {
		t.Fatal(err) // old.xml is not served: fetching it would fail
	}
	cs := resourcesync.ChangesSince(lists, since)
	if !cs.Covered || len(cs.Entries) != 2 || !cs.Until.Equal(time.Date(2020, 1, 3, 5, 0, 0, 0, time.UTC)) {
		t.Fatalf("changes %+v", cs)
	}
	if _, err := f.ChangeLists(context.Background(), srv.URL+"/cl.xml", time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Error("a list the index names but the server lacks did not fail")
	}
}

// TestDescribe merges a describedby metalink's piece hashes and mirrors.
func TestDescribe(t *testing.T) {
	srv := docs(t, map[string]string{
		"/f.meta4": `<?xml version="1.0"?><metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="f.bin"><size>8</size>
<hash type="sha-256">5e2bf57d3f40c4b6df69daf1936cb766f832374b4fc0259a7cbff06e2f70f269</hash>
<pieces length="4" type="sha-1"><hash>8cb2237d0679ca88db6464eac60da96345513964</hash><hash>8cb2237d0679ca88db6464eac60da96345513964</hash></pieces>
<url>http://mirror.example/f.bin</url></file></metalink>`,
		"/bad.meta4": `<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="f.bin"><size>9</size><url>http://m/f</url></file></metalink>`,
	})
	r := resourcesync.Resource{Loc: srv.URL + "/d/f.bin", DescribedBy: "/f.meta4"}
	r.File.Name, r.File.Size = "d/f.bin", 8
	var f resourcesync.Fetcher
	if err := f.Describe(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	if r.File.Pieces == nil || len(r.File.Pieces.Hashes) != 2 || len(r.File.URLs) != 1 || len(r.File.Hashes) != 1 {
		t.Fatalf("merged %+v", r.File)
	}
	r.DescribedBy = "/bad.meta4"
	if err := f.Describe(context.Background(), &r); err == nil || !strings.Contains(err.Error(), "not used") {
		t.Errorf("a metalink of another size: %v", err)
	}
}
