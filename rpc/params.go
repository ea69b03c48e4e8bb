package rpc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// params are a method's parameters after the token.
type params []json.RawMessage

func (p params) has(i int) bool { return i < len(p) && string(p[i]) != "null" }

func (p params) str(i int, what string) (string, error) {
	if !p.has(i) {
		return "", failf("%s is required", what)
	}
	var v string
	if json.Unmarshal(p[i], &v) != nil {
		return "", failf("%s must be a string", what)
	}
	return v, nil
}

func (p params) strs(i int, what string) ([]string, error) {
	if !p.has(i) {
		return nil, nil
	}
	var v []string
	if json.Unmarshal(p[i], &v) != nil {
		return nil, failf("%s must be an array of strings", what)
	}
	return v, nil
}

// integer reads an integer, which aria2 clients send as a number or as a
// string of digits.
func (p params) integer(i int, what string) (int64, bool, error) {
	if !p.has(i) {
		return 0, false, nil
	}
	var n json.Number
	if json.Unmarshal(p[i], &n) == nil {
		v, err := n.Int64()
		if err != nil {
			return 0, false, failf("%s must be an integer", what)
		}
		return v, true, nil
	}
	var str string
	if json.Unmarshal(p[i], &str) == nil {
		if v, err := strconv.ParseInt(str, 10, 64); err == nil {
			return v, true, nil
		}
	}
	return 0, false, failf("%s must be an integer", what)
}

// options reads aria2's options struct: string values, or arrays of
// strings for options that repeat (header).
func (p params) options(i int) (map[string][]string, error) {
	if !p.has(i) {
		return map[string][]string{}, nil
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(p[i], &raw) != nil {
		return nil, failf("options must be a struct")
	}
	out := make(map[string][]string, len(raw))
	for k, v := range raw {
		var one string
		if json.Unmarshal(v, &one) == nil {
			out[k] = []string{one}
			continue
		}
		var many []string
		if json.Unmarshal(v, &many) == nil {
			out[k] = many
			continue
		}
		out[k] = []string{string(v)} // a number or a boolean, as aria2 reads it
	}
	return out, nil
}

func (p params) keys(i int) ([]string, error) { return p.strs(i, "keys") }

// addOptionsAt reads a new download's options struct at i (addOptions).
func (p params) addOptionsAt(i int) (AddOptions, error) {
	o, err := p.options(i)
	if err != nil {
		return AddOptions{}, err
	}
	return addOptions(o)
}

// document reads the base64 string at i: a .torrent or metalink, named
// what in the message when it is not base64.
func (p params) document(i int, what string) ([]byte, error) {
	enc, err := p.str(i, what)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, failf("The %s is not base64: %v", what, err)
	}
	return b, nil
}

// addOptions takes aria2's options of a new download; options Braid does
// not know are ignored, as clients send their whole settings.
func addOptions(o map[string][]string) (AddOptions, error) {
	first := func(k string) string {
		if v := o[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	a := AddOptions{Dir: first("dir"), Out: first("out"), Referer: first("referer"), UserAgent: first("user-agent"), Headers: o["header"],
		HTTPUser: first("http-user"), HTTPPasswd: first("http-passwd"), FTPUser: first("ftp-user"), FTPPasswd: first("ftp-passwd"),
		AllProxy: first("all-proxy"), AllProxyUser: first("all-proxy-user"), AllProxyPasswd: first("all-proxy-passwd"), NoProxy: first("no-proxy")}
	for _, k := range []string{"http-proxy", "https-proxy", "ftp-proxy"} {
		// A proxy for one scheme only, taken as no proxy, would send the
		// download past the proxy the client asked for.
		if first(k) != "" {
			return a, fmt.Errorf("the option %s: %w; give all-proxy, which Braid takes for every server of the download", k, ErrUnsupported)
		}
	}
	if v := first("max-download-limit"); v != "" {
		n, err := parseSize(v)
		if err != nil {
			return a, failf("max-download-limit: %v", err)
		}
		a.MaxDownloadLimit = n
	}
	switch v := first("pause"); v {
	case "", "false":
	case "true":
		a.Pause = true
	default:
		return a, failf("pause must be true or false, not %q", v)
	}
	return a, nil
}

func positive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, failf("%q is not a positive integer", v)
	}
	return n, nil
}

// parseSize reads aria2's sizes: bytes, or with K or M (1024, 1048576).
func parseSize(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "K"), strings.HasSuffix(v, "k"):
		mult, v = 1<<10, v[:len(v)-1]
	case strings.HasSuffix(v, "M"), strings.HasSuffix(v, "m"):
		mult, v = 1<<20, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, failf("%q is not a size (bytes, or a number with K or M)", v)
	}
	return n * mult, nil
}
