package remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"braid/engine/metalink"
	"braid/platform"
)

// TakeLink adds a link the browser handed over (through the native host,
// to the window showing these downloads) to the daemon's downloads with
// aria2.addUri, as the extension's own aria2 mode does: the browser's
// cookies go as a Cookie header, with its user agent, referrer and name
// for the file. The folder is the daemon's: l.Dir is a folder of this
// computer. Answer.Name is the file's name as far as it is known and
// Answer.Warning says where the download went. Errors never hold the
// cookies' values.
func (b *Backend) TakeLink(ctx context.Context, l platform.Link) (platform.Answer, error) {
	u, err := url.Parse(l.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ftp") {
		return platform.Answer{}, sayf("%q is not a link the downloads at %s can fetch.", l.URL, b.shown)
	}
	opts := map[string]any{}
	name := ""
	if l.Filename != "" && metalink.SafeName(l.Filename) == nil && !strings.ContainsAny(l.Filename, `/\`) {
		opts["out"] = l.Filename
		name = l.Filename
	}
	if l.Referrer != "" {
		opts["referer"] = l.Referrer
	}
	if l.UserAgent != "" {
		opts["user-agent"] = l.UserAgent
	}
	if len(l.Cookies) > 0 {
		pairs := make([]string, 0, len(l.Cookies))
		for _, c := range l.Cookies {
			pairs = append(pairs, c.Name+"="+c.Value)
		}
		opts["header"] = []string{"Cookie: " + strings.Join(pairs, "; ")}
	}
	var gid string
	if err := b.call(ctx, &gid, "aria2.addUri", []string{l.URL}, opts); err != nil {
		return platform.Answer{}, errors.New(scrub(err.Error(), l.Cookies))
	}
	b.changed()
	if name == "" {
		if name = path.Base(u.Path); name == "." || name == "/" || metalink.SafeName(name) != nil {
			name = u.Hostname()
		}
	}
	return platform.Answer{Name: name, Warning: fmt.Sprintf("added to the downloads at %s, which the open Braid window shows", b.shown)}, nil
}

// scrub takes the cookies' values out of text.
func scrub(text string, cookies []platform.Cookie) string {
	for _, c := range cookies {
		if len(c.Value) >= 4 {
			text = strings.ReplaceAll(text, c.Value, "…")
		}
	}
	return text
}
