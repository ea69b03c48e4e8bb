package netconf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// netrc holds the logins of a .netrc file, by machine name.
type netrc struct {
	machines map[string]Login // lower-case host name
	def      *Login           // the "default" entry
}

// netrcPaths are the user's .netrc files that Open looks for when none is
// named, in order; the first that exists is read. On Windows, as curl
// does: _netrc, then .netrc, in %HOME% and then in %USERPROFILE% (Windows
// names no file with a leading dot, and most people there have no HOME).
// Elsewhere $HOME/.netrc.
func netrcPaths(goos string, getenv func(string) string) []string {
	if goos != "windows" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		if home == "" {
			return nil
		}
		return []string{filepath.Join(home, ".netrc")}
	}
	var paths []string
	for _, v := range []string{"HOME", "USERPROFILE"} {
		if dir := getenv(v); dir != "" {
			paths = append(paths, filepath.Join(dir, "_netrc"), filepath.Join(dir, ".netrc"))
		}
	}
	return paths
}

// maxNetrc bounds the size of a .netrc read.
const maxNetrc = 1 << 20

// readNetrc reads a .netrc file: "machine NAME login USER password PASS"
// entries, a "default" entry, "account" ignored, "macdef" bodies skipped,
// "#" comments, and double-quoted words with backslash escapes (as curl
// reads them). The first entry for a machine wins, as in curl and ftp(1).
// Errors name the file and line, never a word of it.
func readNetrc(path string) (*netrc, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxNetrc {
		return nil, fmt.Errorf("%s: larger than %d bytes, not a .netrc", path, maxNetrc)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseNetrc(path, string(b))
}

func parseNetrc(path, text string) (*netrc, error) {
	n := &netrc{machines: map[string]Login{}}
	toks, err := netrcTokens(path, text)
	if err != nil {
		return nil, err
	}
	var (
		cur     *Login
		curHost string
		isDef   bool
	)
	flush := func() {
		if cur == nil {
			return
		}
		if isDef {
			if n.def == nil {
				n.def = cur
			}
		} else if _, ok := n.machines[curHost]; !ok {
			n.machines[curHost] = *cur
		}
		cur = nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		arg := func() (string, error) {
			if i+1 >= len(toks) {
				return "", fmt.Errorf("%s:%d: %q without a value", path, t.line, t.word)
			}
			i++
			return toks[i].word, nil
		}
		switch t.word {
		case "machine":
			flush()
			h, err := arg()
			if err != nil {
				return nil, err
			}
			cur, curHost, isDef = &Login{}, strings.ToLower(h), false
		case "default":
			flush()
			cur, isDef = &Login{}, true
		case "login", "password", "account":
			v, err := arg()
			if err != nil {
				return nil, err
			}
			if cur == nil {
				return nil, fmt.Errorf("%s:%d: %q before any machine", path, t.line, t.word)
			}
			switch t.word {
			case "login":
				cur.User = v
			case "password":
				cur.Password = v
			}
		case "macdef":
			if _, err := arg(); err != nil {
				return nil, err
			}
			// The macro's body runs to the next empty line.
			for i+1 < len(toks) && !toks[i+1].afterBlank {
				i++
			}
		default:
			return nil, fmt.Errorf("%s:%d: unknown word (not machine, default, login, password, account or macdef)", path, t.line)
		}
	}
	flush()
	return n, nil
}

type netrcToken struct {
	word       string
	line       int
	afterBlank bool // an empty line came between this word and the last
}

func netrcTokens(path, text string) ([]netrcToken, error) {
	var toks []netrcToken
	line, blank := 1, false
	lineStart := true
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			if lineStart {
				blank = true
			}
			line++
			lineStart = true
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#' && lineStart:
			for i < len(text) && text[i] != '\n' {
				i++
			}
			lineStart = false
		case c == '"':
			var b strings.Builder
			i++
			closed := false
			for i < len(text) {
				c := text[i]
				if c == '"' {
					closed = true
					i++
					break
				}
				if c == '\\' && i+1 < len(text) {
					i++
					switch text[i] {
					case 'n':
						b.WriteByte('\n')
					case 'r':
						b.WriteByte('\r')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(text[i])
					}
					i++
					continue
				}
				if c == '\n' {
					break
				}
				b.WriteByte(c)
				i++
			}
			if !closed {
				return nil, fmt.Errorf("%s:%d: a quoted word is not closed", path, line)
			}
			toks = append(toks, netrcToken{word: b.String(), line: line, afterBlank: blank})
			blank, lineStart = false, false
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \t\r\n", rune(text[j])) {
				j++
			}
			toks = append(toks, netrcToken{word: text[i:j], line: line, afterBlank: blank})
			blank, lineStart = false, false
			i = j
		}
	}
	return toks, nil
}

// find returns the login for host, the default entry's when no machine
// names it.
func (n *netrc) find(host string) (Login, bool) {
	if n == nil {
		return Login{}, false
	}
	if l, ok := n.machines[strings.ToLower(host)]; ok {
		return l, true
	}
	if n.def != nil {
		return *n.def, true
	}
	return Login{}, false
}
