package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/signature"
	"braid/queue"
	"braid/runner"
)

// The OpenPGP signature outcomes as `braid verify`, `braid get --json`
// and `braid queue list` tell them; the runner checks them (runner.Get,
// runner's signatureCheck).

// jsonSignature is the --json line of a signature outcome; field names are
// stable for scripts.
type jsonSignature struct {
	Type        string `json:"type"` // "signature"
	File        string `json:"file"`
	Status      string `json:"status"` // good, unknown-key, unreadable, bad
	Fingerprint string `json:"fingerprint,omitempty"`
	Signer      string `json:"signer,omitempty"`
	Message     string `json:"message"`
}

// sigVerdict is what `braid verify` found of a file's signature.
type sigVerdict struct {
	outcome signature.Outcome
	err     error // why the file fails for its signature; nil: it does not
}

// verifySigs checks signatures for `braid verify`.
type verifySigs struct {
	state   *string
	require *bool
}

// verifySignatureFlags adds verify's signature flags to fs.
func verifySignatureFlags(fs *flag.FlagSet) *verifySigs {
	return &verifySigs{
		state:   fs.String("state", "", "state folder holding the keyring (default: the user config folder; BRAID_STATE overrides)"),
		require: fs.Bool("require-signature", false, "a file is good only if an OpenPGP key of the keyring (braid keys) signed it"),
	}
}

// check verifies the signature of f, found in root, when its hashes
// matched (a file with bad bytes fails anyway, and its signature would
// only repeat it).
func (v *verifySigs) check(root *os.Root, f metalink.File, rep *piece.Report) sigVerdict {
	if rep == nil || !rep.OK() {
		return sigVerdict{}
	}
	dir, err := queue.Dir(*v.state)
	if err != nil {
		return sigVerdict{err: err}
	}
	file, err := root.Open(filepath.FromSlash(f.Name))
	if err != nil {
		return sigVerdict{err: err}
	}
	defer file.Close()
	o, err := signature.OpenKeyring(queue.KeysDir(dir)).Check(f.Signature, file)
	if err != nil {
		return sigVerdict{err: err}
	}
	return sigVerdict{outcome: o, err: o.Err(*v.require)}
}

// writeText adds the verdict's lines under a file's line of verify.
func (s sigVerdict) writeText(b *strings.Builder) {
	if s.outcome.Status != signature.Unchecked {
		fmt.Fprintf(b, "  %s\n", s.outcome)
		if a := s.outcome.Advice(); a != "" {
			fmt.Fprintf(b, "  %s\n", a)
		}
	}
	if s.err != nil && s.outcome.Status != signature.Bad {
		fmt.Fprintf(b, "  %v\n", s.err)
	}
}

// json is the verdict in verify's --json, nil when nothing was checked.
func (s sigVerdict) json(name string) *jsonSignature {
	if s.outcome.Status == signature.Unchecked && s.err == nil {
		return nil
	}
	j := &jsonSignature{Type: "signature", File: name, Status: s.outcome.Status.String(),
		Fingerprint: s.outcome.Fingerprint, Signer: s.outcome.Signer, Message: s.outcome.String()}
	if s.err != nil && s.outcome.Status != signature.Bad {
		j.Message = s.err.Error()
	}
	return j
}

// queueSignatures are the recorded signature outcomes of job id for
// `braid queue list --json`, in file-name order; nil when none (or the
// queue cannot say: the list goes on without them).
func queueSignatures(q *queue.Queue, id int64) []jsonSignature {
	sigs, err := runner.Signatures(q, id)
	if err != nil || len(sigs) == 0 {
		return nil
	}
	var out []jsonSignature
	for _, name := range slices.Sorted(maps.Keys(sigs)) {
		o := sigs[name]
		out = append(out, jsonSignature{Type: "signature", File: name, Status: o.Status.String(),
			Fingerprint: o.Fingerprint, Signer: o.Signer, Message: o.String()})
	}
	return out
}

// queueTrustText is what `braid queue list` adds to a job's state: the
// signature outcome of a one-file job (each file's for more), and the
// job's notice (a new version found at a dynamic metalink's origin).
func queueTrustText(q *queue.Queue, id int64) string {
	var parts []string
	sigs := queueSignatures(q, id)
	for _, s := range sigs {
		if s.Status == signature.Bad.String() && len(sigs) == 1 {
			continue // the job's error says it already
		}
		if len(sigs) == 1 {
			parts = append(parts, s.Message)
		} else {
			parts = append(parts, s.File+": "+s.Message)
		}
	}
	if j, _ := q.Get(id); j.Notice != "" {
		parts = append(parts, j.Notice)
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, "; ") + "]"
}
