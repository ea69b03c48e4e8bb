package signature

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"braid/engine/transport"
)

// ImportFrom imports the keys of source, a file path or an http(s) URL,
// into the keyring: what `braid keys import` and the window's settings do.
// client is used for a URL; nil: the transport's shared client.
func (k *Keyring) ImportFrom(ctx context.Context, source string, client *http.Client) ([]Key, error) {
	var data []byte
	if isHTTP(source) {
		b, err := Fetch(ctx, source, MaxKeyFile, client)
		if err != nil {
			return nil, err
		}
		data = b
	} else {
		b, err := os.ReadFile(source)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		data = b
	}
	keys, err := k.Import(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return keys, nil
}

func isHTTP(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

// Fetch GETs an http(s) URL of at most limit bytes: a key file, or a
// signature a Link header names. Its errors name the URL (less any
// credentials).
func Fetch(ctx context.Context, rawURL string, limit int64, client *http.Client) ([]byte, error) {
	src, err := transport.NewHTTP(rawURL, transport.Options{Size: -1, HTTPClient: client})
	if err != nil {
		return nil, err
	}
	_, body, err := src.Fetch(ctx, limit)
	if err != nil {
		return nil, err
	}
	return body, nil
}
