package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/signature"
	"braid/queue"
)

// The OpenPGP signature checks of `braid get` and `braid verify`: the
// engine runs the check over NAME.part before the rename (so a bad
// signature leaves the file NAME.part), the outcome goes to the queue, and
// here it is told to the user.

// jsonSignature is the --json line of a signature outcome; field names are
// stable for scripts.
type jsonSignature struct {
	Type        string `json:"type"` // "signature"
	File        string `json:"file"`
	Status      string `json:"status"` // good, unknown-key, bad
	Fingerprint string `json:"fingerprint,omitempty"`
	Signer      string `json:"signer,omitempty"`
	Message     string `json:"message"`
}

// keyringFor is the keyring of get's state folder.
func (o *getOptions) keyringFor(st getState) (*signature.Keyring, error) {
	if qs := queueStateOf(st); qs != nil {
		return signature.OpenKeyring(qs.dir), nil
	}
	dir, err := queue.Dir(o.state)
	if err != nil {
		return nil, err
	}
	return signature.OpenKeyring(dir), nil
}

// checkSignature makes the engine check req's file's signature before its
// rename, recording the outcome in the queue when get keeps state, and
// returns where the outcome will be once the download has ended.
func (o *getOptions) checkSignature(st getState, req *engine.Request) *signature.Outcome {
	out := new(signature.Outcome)
	kr, err := o.keyringFor(st)
	if err != nil {
		req.Check = func(ctx context.Context, r io.Reader) error { return fmt.Errorf("keyring: %w", err) }
		return out
	}
	qs := queueStateOf(st)
	record := func(got signature.Outcome) error {
		*out = got
		if qs == nil {
			return nil
		}
		id, ok := qs.jobOf(req)
		if !ok {
			return nil
		}
		return qs.open().SetSignature(id, req.File.Name, got)
	}
	// req.File is read when the check runs: a dynamic metalink's new
	// version comes with its own signature.
	req.Check = func(ctx context.Context, r io.Reader) error {
		return kr.CheckFunc(req.File.Signature, o.requireSignature, record)(ctx, r)
	}
	return out
}

// reportSignature tells what checking a file's signature found, if it
// was checked; a failure was told already with the download's error.
func (o *getOptions) reportSignature(name string, sig *signature.Outcome) {
	if sig.Status == signature.Unchecked {
		return
	}
	if o.json {
		writeJSON(o.stdout, jsonSignature{Type: "signature", File: name, Status: sig.Status.String(),
			Fingerprint: sig.Fingerprint, Signer: sig.Signer, Message: sig.String()})
		return
	}
	if sig.Status == signature.Bad {
		return
	}
	fmt.Fprintf(o.stdout, "%s: %s\n", name, sig)
	if a := sig.Advice(); a != "" && !o.requireSignature { // else the failure says it
		fmt.Fprintf(o.stdout, "%s: %s\n", name, a)
	}
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
	o, err := signature.OpenKeyring(dir).Check(f.Signature, file)
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
	sigs, err := q.Signatures(id)
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
	if n, _ := q.Notice(id); n != "" {
		parts = append(parts, n)
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, "; ") + "]"
}
