package metalink

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// parseTestdata parses testdata/name and fails the test on error.
func parseTestdata(t *testing.T, name string) *Document {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return doc
}

func parseString(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	return d
}

// checkDoc compares two documents field by field and reports every
// difference with its path, e.g. Files[0].URLs[2].Location.
func checkDoc(t *testing.T, got, want *Document) {
	t.Helper()
	var diffs []string
	diffValue("Document", reflect.ValueOf(got), reflect.ValueOf(want), &diffs)
	for _, d := range diffs {
		t.Error(d)
	}
}

var timeType = reflect.TypeFor[time.Time]()

func diffValue(path string, got, want reflect.Value, out *[]string) {
	switch got.Kind() {
	case reflect.Pointer:
		if got.IsNil() || want.IsNil() {
			if got.IsNil() != want.IsNil() {
				*out = append(*out, fmt.Sprintf("%s: got %s, want %s", path, show(got), show(want)))
			}
			return
		}
		diffValue(path, got.Elem(), want.Elem(), out)
	case reflect.Struct:
		if got.Type() == timeType {
			g, w := got.Interface().(time.Time), want.Interface().(time.Time)
			if !g.Equal(w) || g.Location() != w.Location() {
				*out = append(*out, fmt.Sprintf("%s: got %v, want %v", path, g, w))
			}
			return
		}
		for i := 0; i < got.NumField(); i++ {
			diffValue(path+"."+got.Type().Field(i).Name, got.Field(i), want.Field(i), out)
		}
	case reflect.Slice:
		if got.Len() != want.Len() {
			*out = append(*out, fmt.Sprintf("%s: got %d elements, want %d\n got: %s\nwant: %s",
				path, got.Len(), want.Len(), show(got), show(want)))
			return
		}
		for i := 0; i < got.Len(); i++ {
			diffValue(fmt.Sprintf("%s[%d]", path, i), got.Index(i), want.Index(i), out)
		}
	default:
		if !reflect.DeepEqual(got.Interface(), want.Interface()) {
			*out = append(*out, fmt.Sprintf("%s: got %#v, want %#v", path, got.Interface(), want.Interface()))
		}
	}
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		return fmt.Sprintf("&%+v", v.Elem().Interface())
	}
	return fmt.Sprintf("%+v", v.Interface())
}

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// mirror and torrent keep the expected models short.
func mirror(u, location string, priority int) URL {
	return URL{URL: u, Location: location, Priority: priority}
}

func torrent(u string, priority int) MetaURL {
	return MetaURL{URL: u, MediaType: "torrent", Priority: priority}
}

func TestCheckDocReportsDifferences(t *testing.T) {
	a := &Document{Version: 4, Files: []File{{Name: "a", URLs: []URL{mirror("u", "DE", 1)}}}}
	b := &Document{Version: 4, Files: []File{{Name: "a", URLs: []URL{mirror("u", "FR", 1)}}}}
	var diffs []string
	diffValue("Document", reflect.ValueOf(a), reflect.ValueOf(b), &diffs)
	if len(diffs) != 1 || !strings.Contains(diffs[0], "Document.Files[0].URLs[0].Location") {
		t.Fatalf("diffs = %q, want one naming Document.Files[0].URLs[0].Location", diffs)
	}
	diffs = nil
	diffValue("Document", reflect.ValueOf(a), reflect.ValueOf(a), &diffs)
	if len(diffs) != 0 {
		t.Fatalf("a document differs from itself: %q", diffs)
	}
}
