package runner

import (
	"context"
	"io"
	"path/filepath"

	"braid/engine/metalink"
	"braid/engine/signature"
	"braid/queue"
)

// Keyring is the user's keyring for queue q: the public keys the user
// trusts to sign downloads, kept in q's state folder or, for the default
// one, in the system's settings folder (queue.KeysDir).
func Keyring(q *queue.Queue) *signature.Keyring {
	return signature.OpenKeyring(queue.KeysDir(filepath.Dir(q.Path())))
}

// Outcome is the signature outcome the queue recorded as s.
func Outcome(s queue.Signature) signature.Outcome {
	return signature.Outcome{Status: signature.ParseStatus(s.Status),
		Fingerprint: s.Fingerprint, Signer: s.Signer, Note: s.Note}
}

// SignatureRecord is o as the queue records it (queue.Signed);
// Outcome turns it back. The zero Outcome is the zero record, which clears
// what was recorded.
func SignatureRecord(o signature.Outcome) queue.Signature {
	if o == (signature.Outcome{}) {
		return queue.Signature{}
	}
	return queue.Signature{Status: o.Status.String(),
		Fingerprint: o.Fingerprint, Signer: o.Signer, Note: o.Note}
}

// Signatures returns the signature outcomes recorded for job id's files,
// by file name; a file whose signature was never checked is absent.
func Signatures(q *queue.Queue, id int64) (map[string]signature.Outcome, error) {
	j, err := q.Get(id)
	if err != nil {
		return nil, err
	}
	out := map[string]signature.Outcome{}
	for _, f := range j.Files {
		if f.Signature != nil {
			out[f.Name] = Outcome(*f.Signature)
		}
	}
	return out, nil
}

// signatureCheck is the engine's Request.Check for the file *f (read when
// the check runs: a dynamic metalink's new version comes with its own
// signature), for a queue run's files and get's alike: it checks the
// signature f's document gives (if any) against the keyring kr and
// records the outcome with the file's job, once job has one, and in seen
// when not nil (see signature.Keyring.CheckFunc). It fails on a bad
// signature, and with require also unless a known key signed, so the
// file stays NAME.part.
func signatureCheck(kr *signature.Keyring, f *metalink.File, require bool, job func() (*queue.Queue, int64, bool), seen *signature.Outcome) func(context.Context, io.Reader) error {
	return func(ctx context.Context, r io.Reader) error {
		return kr.CheckFunc(f.Signature, require, func(o signature.Outcome) error {
			if seen != nil {
				*seen = o
			}
			q, id, ok := job()
			if !ok {
				return nil
			}
			return q.SetFile(id, f.Name, queue.Signed(SignatureRecord(o)))
		})(ctx, r)
	}
}
