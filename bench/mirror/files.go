package mirror

import "fmt"

// Window is n bytes of c from off on, as a Content of its own: the files
// of a batch are windows of one content, so no two are alike and none is
// held in memory.
func (c *Content) Window(off, n int64) *Content {
	return &Content{Size: n, pattern: c.pattern, base: c.base + off}
}

// StartFiles is Start serving files as well: each at /NAME, for the
// batch scenarios (many files on the same mirrors, sharing its rate).
func StartFiles(c *Content, files map[string]*Content, addr string, b Behaviour) (*Server, error) {
	s, err := Start(c, addr, b)
	if err != nil {
		return nil, err
	}
	s.files = make(map[string]*Content, len(files))
	for name, fc := range files {
		s.files["/"+name] = fc
	}
	return s, nil
}

// Base is the URL of the folder the files are served in, ending in '/'.
func (s *Server) Base() string { return fmt.Sprintf("http://%s/", s.ln.Addr()) }
