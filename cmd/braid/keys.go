package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"braid/engine/signature"
	"braid/queue"
)

const keysUsage = `Usage: braid keys [--state DIR] [network flags] import FILE|URL
       braid keys [--state DIR] list [--json]
       braid keys [--state DIR] remove FINGERPRINT

The OpenPGP public keys whose signatures Braid trusts, kept in the state
folder. A download whose metalink carries a signature is checked against
them: a good signature by one of these keys is reported as "signed by", a
signature by another key as "signed by an unknown key", and a bad signature
fails the file (it stays NAME.part). Import a publisher's key only after
checking its fingerprint from a source you trust. A key's URL is fetched
through the network flags' proxy, with their login, cookies and headers.

Flags:
`

// jsonKey is one key of `braid keys list --json`; field names are stable.
type jsonKey struct {
	Fingerprint string    `json:"fingerprint"`
	UserID      string    `json:"user_id"`
	Name        string    `json:"name"`
	Email       string    `json:"email"`
	Created     time.Time `json:"created"`
	Revoked     bool      `json:"revoked"`
}

// cmdKeys is `braid keys import|list|remove`.
func cmdKeys(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("braid keys", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, keysUsage)
		fs.PrintDefaults()
	}
	state := fs.String("state", "", "state folder (default: the user config folder; BRAID_STATE overrides)")
	asJSON := fs.Bool("json", false, "list: print JSON")
	netf := addNetFlags(fs)
	rest, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	want := map[string]int{"import": 2, "list": 1, "remove": 2}
	if len(rest) == 0 || want[rest[0]] != len(rest) {
		fmt.Fprintln(stderr, "braid keys: want import FILE|URL, list, or remove FINGERPRINT")
		fs.Usage()
		return 2
	}
	dir, err := queue.Dir(*state)
	if err != nil {
		fmt.Fprintf(stderr, "braid keys: %v\n", err)
		return 1
	}
	kr := signature.OpenKeyring(queue.KeysDir(dir))
	switch rest[0] {
	case "import":
		network, session, err := netf.open(rest[1:])
		if err != nil {
			fmt.Fprintf(stderr, "braid keys: %v\n", err)
			return 2
		}
		keys, err := kr.ImportFrom(ctx, rest[1], session.Client(network.HTTPClient()))
		if err != nil {
			fmt.Fprintf(stderr, "braid keys: %v\n", err)
			return 1
		}
		for _, k := range keys {
			fmt.Fprintf(stdout, "imported %s\n", k)
		}
	case "list":
		keys, err := kr.Keys()
		if err != nil {
			fmt.Fprintf(stderr, "braid keys: %v\n", err)
			return 1
		}
		if *asJSON {
			out := make([]jsonKey, 0, len(keys))
			for _, k := range keys {
				out = append(out, jsonKey{k.Fingerprint, k.UserID, k.Name, k.Email, k.Created.UTC(), k.Revoked})
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(out); err != nil {
				fmt.Fprintf(stderr, "braid keys: %v\n", err)
				return 1
			}
			return 0
		}
		if len(keys) == 0 {
			fmt.Fprintf(stdout, "no keys in %s; add one with: braid keys import FILE|URL\n", kr.Path())
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FINGERPRINT\tCREATED\tUSER ID")
		for _, k := range keys {
			uid := k.UserID
			if k.Revoked {
				uid += " [revoked]"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Fingerprint, k.Created.UTC().Format("2006-01-02"), uid)
		}
		if err := tw.Flush(); err != nil {
			return 1
		}
	case "remove":
		k, err := kr.Remove(rest[1])
		if err != nil {
			fmt.Fprintf(stderr, "braid keys: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "removed %s\n", k)
	}
	return 0
}
