package bridge

import (
	"context"
	"maps"
	"slices"
	"strings"

	"braid/engine/piece"
	"braid/engine/signature"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

var _ ui.Keyring = (*Backend)(nil)

// Keys lists the keyring of the queue's state folder.
func (b *Backend) Keys() ([]ui.Key, error) {
	keys, err := runner.Keyring(b.q).Keys()
	if err != nil {
		return nil, err
	}
	return uiKeys(keys), nil
}

// ImportKey imports the keys of a file or an http(s) URL into the keyring,
// as `braid keys import` does; a URL is read through the window's proxy
// setting, as a source is.
func (b *Backend) ImportKey(ctx context.Context, source string) ([]ui.Key, error) {
	keys, err := runner.Keyring(b.q).ImportFrom(ctx, source, b.sourceClient())
	if err != nil {
		return nil, err
	}
	return uiKeys(keys), nil
}

// RemoveKey takes a key out of the keyring.
func (b *Backend) RemoveKey(fingerprint string) error {
	_, err := runner.Keyring(b.q).Remove(fingerprint)
	return err
}

func uiKeys(keys []signature.Key) []ui.Key {
	out := make([]ui.Key, len(keys))
	for i, k := range keys {
		out[i] = ui.Key{Name: k.Name, Email: k.Email, Fingerprint: k.Fingerprint, Revoked: k.Revoked}
		if k.Name == "" && k.Email == "" {
			out[i].Name = k.UserID
		}
	}
	return out
}

// trustLocked fills in how a job's files were vouched for: the outcome
// the queue recorded (queue.Job.Checked: verified by which hash, or not
// verified), and the signature outcomes recorded (trust, by file name). A bad signature is the job's failure,
// with the outcome as its message when the queue recorded none.
func trustLocked(v *ui.Job, j queue.Job, trust map[string]queue.FileTrust) {
	if j.State == queue.Done {
		v.Outcome, v.Unverified = checkedText(j)
		if v.Unverified && len(trust) > 0 && legacyHashed(trust) != "" {
			// Verified before the queue recorded by which hash: every
			// file had one, and a done file matched all of its hashes.
			v.Unverified, v.Outcome = false, verifiedText(legacyHashed(trust))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(trust)) {
		o := runner.Outcome(trust[name].Signature)
		switch o.Status {
		case signature.Bad:
			v.State = ui.Failed
			if v.Err == "" {
				v.Err = ui.SignatureText(o)
			}
			v.Signer, v.SignerUnknown = "", false
			return
		case signature.UnknownKey:
			if v.Signer == "" {
				v.Signer, v.SignerUnknown = o.Fingerprint, true
			}
		case signature.Good:
			if v.Signer == "" || v.SignerUnknown {
				v.Signer, v.SignerUnknown = o.Signer, false
			}
		case signature.Unreadable:
			// A warning beside a kept file, never its failure: the file
			// was judged by its hashes.
			if v.Outcome != "" && !strings.Contains(v.Outcome, ui.SignatureText(o)) {
				v.Outcome += "; " + ui.SignatureText(o)
			}
		}
	}
}

// legacyHashed is the strongest hash type the files of trust share, ""
// when any has none.
func legacyHashed(trust map[string]queue.FileTrust) string {
	hashed := ""
	for _, name := range slices.Sorted(maps.Keys(trust)) {
		h, ok := piece.Strongest(trust[name].Hashes)
		if !ok {
			return ""
		}
		hashed = cmpOr(hashed, h.Type)
	}
	return hashed
}

// trustDetail adds to a job's details what its signatures and its
// publisher said: the unknown key to import and how, and the notice of a
// new version.
func (b *Backend) trustDetail(d *ui.Detail) {
	sigs, err := runner.Signatures(b.q, int64(d.ID))
	if err == nil {
		for _, name := range slices.Sorted(maps.Keys(sigs)) {
			o := sigs[name]
			for i := range d.Files {
				if d.Files[i].Name == name {
					d.Files[i].SignatureOutcome = ui.SignatureText(o)
				}
			}
			if o.Status == signature.UnknownKey && d.UnknownKey == "" {
				d.UnknownKey, d.Advice = o.Fingerprint, ui.SignatureAdvice(o)
			}
		}
	}
	if j, err := b.q.Get(int64(d.ID)); err == nil {
		d.Notice = j.Notice
	}
}
