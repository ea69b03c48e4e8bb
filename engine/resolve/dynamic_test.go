package resolve_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"braid/engine/metalink"
	"braid/engine/resolve"
)

func TestCompare(t *testing.T) {
	h := func(v string) []metalink.Hash { return []metalink.Hash{{Type: "sha-256", Value: v}} }
	u := func(urls ...string) []metalink.URL {
		var out []metalink.URL
		for i, s := range urls {
			out = append(out, metalink.URL{URL: s, Priority: i + 1})
		}
		return out
	}
	old := metalink.File{Name: "a.iso", Size: 10, Hashes: h("aa"), URLs: u("http://m1/a.iso")}
	doc := &metalink.Document{Dynamic: true, Origin: "http://o/a.meta4", Files: []metalink.File{old}}
	tests := []struct {
		name    string
		fresh   []metalink.File
		newVer  bool
		added   int
		wantErr error
	}{
		{"same", []metalink.File{old}, false, 0, nil},
		{"a mirror more", []metalink.File{{Name: "a.iso", Size: 10, Hashes: h("aa"), URLs: u("http://m1/a.iso", "http://m2/a.iso")}}, false, 1, nil},
		{"new hash", []metalink.File{{Name: "a.iso", Size: 10, Hashes: h("bb"), URLs: u("http://m1/a.iso")}}, true, 0, nil},
		{"new size", []metalink.File{{Name: "a.iso", Size: 11, Hashes: h("aa")}}, true, 0, nil},
		{"renamed", []metalink.File{{Name: "a-2.iso", Size: 12, Hashes: h("cc")}}, true, 0, nil},
		{"gone", []metalink.File{{Name: "b.iso"}, {Name: "c.iso"}}, false, 0, resolve.ErrFileGone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up, err := resolve.Compare(doc, old, &metalink.Document{Files: tc.fresh})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if up.NewVersion != tc.newVer || len(up.Added) != tc.added {
				t.Fatalf("new version %v, added %d", up.NewVersion, len(up.Added))
			}
			if !tc.newVer && len(up.File.URLs) != 1+tc.added {
				t.Fatalf("URLs %+v", up.File.URLs)
			}
		})
	}
}

func TestRefetchNeedsDynamicMetalink(t *testing.T) {
	f := metalink.File{Name: "a.iso", Size: 1}
	if _, err := resolve.Refetch(context.Background(), &metalink.Document{Origin: "http://127.0.0.1:9/a.meta4", Files: []metalink.File{f}}, resolve.Options{}); !errors.Is(err, resolve.ErrNotDynamic) {
		t.Fatalf("static document: %v", err)
	}
	// An origin that serves a plain file, not a metalink.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	doc := &metalink.Document{Dynamic: true, Origin: srv.URL + "/a.iso", Files: []metalink.File{f}}
	if _, err := resolve.Refetch(context.Background(), doc, resolve.Options{}); err == nil {
		t.Fatal("an origin serving no metalink refreshed the document")
	}
}
