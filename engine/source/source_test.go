package source

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		in     string
		kind   Kind
		remote bool
		local  bool
		ext    string
		scheme string
	}{
		// Magnet links, in any case; a magnet link names no place.
		{"magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn=x.iso", Magnet, false, false, "", "magnet"},
		{"MAGNET:?XT=urn:btih:C12FE1C06BBA254A9DC9F519B335AA7C1367A88A", Magnet, false, false, "", "magnet"},
		{"Magnet:?dn=a.torrent", Magnet, false, false, "", "magnet"},
		// .torrent files and URLs: the extension of the URL's path, not
		// of its query or fragment, in any case.
		{"https://example.com/isos/debian.torrent", Torrent, true, false, ".torrent", "https"},
		{"https://example.com/isos/DEBIAN.TORRENT?token=1#f", Torrent, true, false, ".torrent", "https"},
		{"ftp://example.com/pub/x.torrent", Torrent, true, false, ".torrent", "ftp"},
		{"https://example.com/get?file=x.torrent", Link, true, false, "", "https"},
		{"https://example.com/x.iso#x.torrent", Link, true, false, ".iso", "https"},
		{"/home/ann/x.TORRENT", Torrent, false, true, ".torrent", ""},
		{`C:\Users\me\Downloads\x.torrent`, Torrent, false, true, ".torrent", ""},
		// Metalink documents.
		{`C:\Users\me\x.meta4`, Metalink, false, true, ".meta4", ""},
		{`c:/Users/me/x.Metalink`, Metalink, false, true, ".metalink", ""},
		{`\\server\share\list.meta4`, Metalink, false, true, ".meta4", ""},
		{"./f.meta4", Metalink, false, true, ".meta4", ""},
		{"f.metalink", Metalink, false, true, ".metalink", ""},
		{"HTTP://Example.COM/pub/f.meta4?x=1", Metalink, true, false, ".meta4", "http"},
		{"https://example.com/a.meta4/", Link, true, false, "", "https"},
		// Plain links.
		{"https://example.com/pub/x.iso?sig=a.b#frag", Link, true, false, ".iso", "https"},
		{"http://example.com", Link, true, false, "", "http"},
		{"ftp://ann:secret@[::1]:2121/f", Link, true, false, "", "ftp"},
		{"https://example.com/list.xml", Link, true, false, ".xml", "https"},
		// Other local files; a directory's dot is not the file's.
		{"/srv/data/resourcelist.xml", File, false, true, ".xml", ""},
		{`C:\dir.v2\file`, File, false, true, "", ""},
		{"dir.v2/file", File, false, true, "", ""},
		{"dir:name/x.meta4", Metalink, false, true, ".meta4", ""},
		{"file.", File, false, true, ".", ""},
		// file: URLs are local paths.
		{"file:///home/ann/x.meta4", Metalink, false, true, ".meta4", "file"},
		{"FILE:///tmp/a.torrent", Torrent, false, true, ".torrent", "file"},
		{"file:x.iso", File, false, true, ".iso", "file"},
		// Not a source.
		{"", None, false, false, "", ""},
		{"file://", None, false, false, "", ""},
		{"http://", None, false, false, "", ""},
		{"https:///x.iso", None, false, false, "", ""},
		{"https://exa mple.com/x.iso", None, false, false, "", ""},
		{"http://example.com/%zz.torrent", None, false, false, "", ""},
		{"sftp://example.com/x.torrent", None, false, false, "", ""},
		{"javascript://alert(1)", None, false, false, "", ""},
		{"data://text/plain,x.meta4", None, false, false, "", ""},
	} {
		s := Of(c.in)
		if s.Kind() != c.kind || s.Remote() != c.remote || s.Local() != c.local || s.Ext() != c.ext || s.Scheme() != c.scheme {
			t.Errorf("Of(%q) = %v remote %v local %v ext %q scheme %q; want %v remote %v local %v ext %q scheme %q",
				c.in, s.Kind(), s.Remote(), s.Local(), s.Ext(), s.Scheme(), c.kind, c.remote, c.local, c.ext, c.scheme)
		}
		if s.String() != c.in {
			t.Errorf("Of(%q).String() = %q", c.in, s.String())
		}
		if got, want := s.IsTorrent(), c.kind == Magnet || c.kind == Torrent; got != want {
			t.Errorf("Of(%q).IsTorrent() = %v", c.in, got)
		}
		if got, want := s.IsURL(), c.kind == Magnet || c.remote; got != want {
			t.Errorf("Of(%q).IsURL() = %v", c.in, got)
		}
		if s.Local() == (s.Path() == "") {
			t.Errorf("Of(%q): local %v but path %q", c.in, s.Local(), s.Path())
		}
	}
}

func TestPath(t *testing.T) {
	want := filepath.FromSlash("/home/ann/x.meta4")
	if got := Of("file:///home/ann/x.meta4").Path(); got != want {
		t.Errorf("a file: URL's path is %q, want %q", got, want)
	}
	if runtime.GOOS == "windows" {
		if got := Of("file:///C:/dl/x.meta4").Path(); got != `C:\dl\x.meta4` {
			t.Errorf(`file:///C:/dl/x.meta4's path is %q, want C:\dl\x.meta4`, got)
		}
	}
	if got := Of(`C:\Users\me\x.meta4`).Path(); got != `C:\Users\me\x.meta4` {
		t.Errorf("a Windows path's path is %q", got)
	}
}

func TestCanonical(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "f.meta4")
	if err := os.WriteFile(real, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	realDir, _ := filepath.EvalSymlinks(dir)
	want := filepath.Join(realDir, "f.meta4")
	for _, s := range []string{"f.meta4", "./f.meta4", real, filepath.Join(dir, "sub", "..", "f.meta4")} {
		if got := Of(s).Canonical(); got != want {
			t.Errorf("Of(%q).Canonical() = %q, want %q", s, got, want)
		}
	}
	for in, want := range map[string]string{
		"HTTP://Example.COM:80/pub/f.meta4#x":      "http://example.com/pub/f.meta4",
		"https://ann:secret@example.com:443/f.iso": "https://example.com/f.iso",
		"https://example.com:8443/f.iso?sig=1":     "https://example.com:8443/f.iso?sig=1",
		"http://example.com":                       "http://example.com/",
		"ftp://[::1]:21/f":                         "ftp://[::1]/f",
		"magnet:?xt=urn:btih:abc&dn=F":             "magnet:?xt=urn:btih:abc&dn=F",
		// A magnet link in upper case is a link too, not a file under
		// the working folder.
		"MAGNET:?xt=urn:btih:abc": "MAGNET:?xt=urn:btih:abc",
		// What does not parse keeps no credentials either.
		"https://ann:secret@exa mple.com/x": "https://exa mple.com/x",
		"sftp://ann:pw@example.com/x":       "sftp://example.com/x",
	} {
		if got := Of(in).Canonical(); got != want {
			t.Errorf("Of(%q).Canonical() = %q, want %q", in, got, want)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{None: "not a source", Magnet: "magnet link", Torrent: "torrent", Metalink: "metalink", Link: "link", File: "file", Kind(99): "not a source"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// A symlink to a metalink is the metalink: one job however it is named.
func TestCanonicalFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "f.meta4")
	if err := os.WriteFile(real, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.meta4")
	if err := os.Symlink(real, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("Windows makes symlinks only with Developer Mode or as an administrator: %v", err)
		}
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		// Wine 8's CreateSymbolicLink makes a Unix symlink that Windows
		// programs cannot see as a symlink (Lstat finds no such file).
		t.Skipf("the symlink just made is not seen as a symlink, so there is no link to resolve (a Wine 8 gap): %v", err)
	}
	if got, want := Of(link).Canonical(), Of(real).Canonical(); got != want {
		t.Errorf("the link's canonical spelling is %q, the metalink's %q", got, want)
	}
}
