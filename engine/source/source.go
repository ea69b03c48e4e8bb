// Package source decides, once, what a source is: the text a user typed,
// dropped or pasted, or an RPC client sent, before anything is read from
// it. Every face asks it (is it a torrent, a metalink, a plain link, a
// local file; its file extension; its one spelling for "already in the
// queue"), so that no two places answer differently.
//
// It reads nothing, neither the disk (but Canonical's path resolution)
// nor the network. What only a source's content can tell, such as
// whether an .xml file is a ResourceSync list (resourcesync.Sniff), is
// left to its reader.
package source

import (
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"braid/engine/redact"
)

// Kind is what a source is, by its spelling.
type Kind uint8

const (
	// None is not a source Braid reads: empty, a URL of another scheme
	// (sftp://, javascript:), or an http(s) or ftp URL without a host.
	None Kind = iota
	// Magnet is a magnet link (magnet:?xt=…, in any case).
	Magnet
	// Torrent is a .torrent file, or the http(s) or ftp URL of one.
	Torrent
	// Metalink is a .meta4 or .metalink document, a file or a URL.
	Metalink
	// Link is the http, https or ftp URL of any other file: a plain
	// download (whose server may still answer with a metalink).
	Link
	// File is any other local file: read as a metalink document
	// whatever its name (an .xml may be a ResourceSync list, which
	// only its content tells).
	File
)

var kindNames = [...]string{"not a source", "magnet link", "torrent", "metalink", "link", "file"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "not a source"
}

// Source is a source's spelling and what it was decided to be.
type Source struct {
	raw    string
	kind   Kind
	scheme string // lower case; "" for a path
	path   string // the local path of a path or file: URL
	ext    string
}

// Of decides what s is. A path (relative, absolute, a Windows drive or UNC
// path) or a file: URL is local; an http, https or ftp URL with a host is
// remote; a word with a colon that is neither ("dir:x.meta4" on Linux) is
// a path too, and a URL of any other scheme is None.
func Of(s string) Source {
	src := Source{raw: s}
	scheme := schemeOf(s)
	switch {
	case s == "":
		return src
	case len(scheme) <= 1: // none, or a Windows drive letter
		src.path = s
	case strings.EqualFold(scheme, "magnet"):
		src.scheme, src.kind = "magnet", Magnet
		return src
	case strings.EqualFold(scheme, "file"):
		src.scheme = "file"
		u, err := url.Parse(s)
		if err != nil {
			return Source{raw: s}
		}
		p := u.Path
		if p == "" {
			p = u.Opaque
		}
		// file:///C:/dl/x.meta4 names C:\dl\x.meta4 on Windows.
		if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
			p = p[1:]
		}
		if p == "" {
			return Source{raw: s}
		}
		src.path = filepath.FromSlash(p)
	case !strings.HasPrefix(s[len(scheme)+1:], "//"):
		src.path = s // "dir:x.meta4": a file name with a colon
	default:
		src.scheme = strings.ToLower(scheme)
		if src.scheme != "http" && src.scheme != "https" && src.scheme != "ftp" {
			return Source{raw: s}
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return Source{raw: s}
		}
		src.ext = ext(u.Path)
		src.kind = byExt(src.ext, Link)
		return src
	}
	src.ext = ext(src.path)
	src.kind = byExt(src.ext, File)
	return src
}

// schemeOf is s's URL scheme as written ("" when s does not begin with
// one): a letter, then letters, digits, '+', '-' or '.', then ':'.
func schemeOf(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i]
		default:
			return ""
		}
	}
	return ""
}

// ext is the lower-case extension of p's last element, with either
// slash as a separator (a Windows path read anywhere); "" for none.
func ext(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return strings.ToLower(p[i:])
	}
	return ""
}

func byExt(ext string, otherwise Kind) Kind {
	switch ext {
	case ".torrent":
		return Torrent
	case ".meta4", ".metalink":
		return Metalink
	}
	return otherwise
}

// String is the source as it was given.
func (s Source) String() string { return s.raw }

// Kind is what the source is.
func (s Source) Kind() Kind { return s.kind }

// IsTorrent reports whether the source is BitTorrent: a magnet link, or a
// .torrent file or URL.
func (s Source) IsTorrent() bool { return s.kind == Magnet || s.kind == Torrent }

// Remote reports whether the source is an http, https or ftp URL with a
// host (a magnet link names no place: it is not remote).
func (s Source) Remote() bool { return s.kind != None && s.kind != Magnet && s.path == "" }

// Local reports whether the source is a path or a file: URL; Path is it.
func (s Source) Local() bool { return s.path != "" }

// IsURL reports whether the source is a link one can paste: a magnet
// link, or a remote URL.
func (s Source) IsURL() bool { return s.kind == Magnet || s.Remote() }

// Scheme is the lower-case scheme of a URL or magnet link; "" for a path.
func (s Source) Scheme() string { return s.scheme }

// Path is a local source's path (a file: URL's, in the system's
// spelling); "" for any other.
func (s Source) Path() string { return s.path }

// Ext is the lower-case extension of the file the source names (of its
// URL's path, without query or fragment); "" for none or a magnet link.
func (s Source) Ext() string { return s.ext }

// defaultPorts are the ports a URL need not name.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ftp": "21"}

// Canonical is the one spelling of a source, so that a source is one job
// however it was written: a file's absolute path with symlinks resolved
// ("f.meta4", "./f.meta4" and "/home/ann/f.meta4" are one), and a URL
// without credentials or fragment, its scheme and host in lower case and
// without the scheme's default port. A magnet link stays as it is. The
// queue stores it: a change here splits jobs stored before it from the
// same sources added after.
func (s Source) Canonical() string {
	if s.kind == Magnet {
		return s.raw
	}
	if strings.Contains(s.raw, "://") {
		u, err := url.Parse(redact.URL(s.raw))
		if err != nil || u.Host == "" {
			return redact.Text(s.raw)
		}
		u.Fragment, u.RawFragment = "", ""
		u.Scheme = strings.ToLower(u.Scheme)
		host, port := strings.ToLower(u.Hostname()), u.Port()
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if port != "" && port != defaultPorts[u.Scheme] {
			host += ":" + port
		}
		u.Host = host
		if u.Path == "" && u.RawQuery == "" {
			u.Path = "/"
		}
		return u.String()
	}
	abs, err := filepath.Abs(s.raw)
	if err != nil {
		return s.raw
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs
}
