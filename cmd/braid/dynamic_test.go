package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
)

// get of a dynamic metalink whose mirrors fail asks its origin, which
// lists another mirror, and finishes from it.
func TestGetDynamicMetalink(t *testing.T) {
	data := getData(300_000)
	gone := mirrortest.New(t, data, mirrortest.Status(http.StatusNotFound), mirrortest.Addr("127.0.0.2"))
	good := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	dir := t.TempDir()
	fresh := readDoc(t, signedMeta4(t, t.TempDir(), data, "", gone.URL(), good.URL()))
	fetches := 0
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches++
		w.Header().Set("Content-Type", "application/metalink4+xml")
		w.Write(fresh)
	}))
	defer origin.Close()
	fresh = dynamicDoc(t, fresh, origin.URL+"/image.meta4")
	local := filepath.Join(t.TempDir(), "local.meta4")
	if err := os.WriteFile(local, dynamicDoc(t, readDoc(t, signedMeta4(t, t.TempDir(), data, "", gone.URL())), origin.URL+"/image.meta4"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runIn(t, cmdGet, "--state", t.TempDir(), "-d", dir, local)
	if code != 0 || !strings.Contains(errs, "origin lists 1 more mirrors") || fetches != 1 {
		t.Fatalf("get: %d (origin fetched %d times)\n%s\n%s", code, fetches, out, errs)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "image.iso")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file: %v", err)
	}
}

func readDoc(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dynamicDoc marks a metalink document dynamic, with origin.
func dynamicDoc(t *testing.T, doc []byte, origin string) []byte {
	t.Helper()
	d, err := metalink.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	d.Origin, d.Dynamic = origin, true
	var b bytes.Buffer
	if err := metalink.Write(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
