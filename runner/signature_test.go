package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/signature"
	"braid/engine/signature/signaturetest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// The runner checks a file's signature with the state folder's keyring
// before the rename and records the outcome.
func TestRunChecksSignatures(t *testing.T) {
	t.Parallel()
	data := testkit.Data(400_000)
	m := mirrortest.New(t, data)
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	mallory := signaturetest.New(t, "Mallory", "mallory@example.org")
	forged := append([]byte(nil), data...)
	forged[5] ^= 1
	tests := []struct {
		name    string
		sig     string
		require bool
		want    signature.Status
		ok      bool
	}{
		{"good", alice.SignArmored(t, data), false, signature.Good, true},
		{"unknown key", mallory.SignArmored(t, data), false, signature.UnknownKey, true},
		{"unknown key, required", mallory.SignArmored(t, data), true, signature.UnknownKey, false},
		{"bad", alice.SignArmored(t, forged), false, signature.Bad, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state, dest := t.TempDir(), t.TempDir()
			q := queuetest.Open(t, queue.Open, state)
			if _, err := Keyring(q).ImportFrom(context.Background(), alice.KeyFile(t), nil); err != nil {
				t.Fatal(err)
			}
			doc := describe(t, "x.bin", data, 64<<10, m)
			doc.Files[0].Signature = &metalink.Signature{MediaType: signature.MediaType, Value: tc.sig}
			id, err := q.Add(queue.NewJob{Source: "x.meta4", Dest: dest, Doc: doc})
			if err != nil {
				t.Fatal(err)
			}
			r := runner(q)
			r.RequireSignature = tc.require
			err = r.RunJob(context.Background(), id)
			if (err == nil) != tc.ok {
				t.Fatalf("run: %v", err)
			}
			if !tc.ok && !errors.Is(err, signature.ErrBad) && !errors.Is(err, signature.ErrUnknownKey) {
				t.Fatalf("run failed for another reason: %v", err)
			}
			sigs, err := Signatures(q, id)
			if err != nil || sigs["x.bin"].Status != tc.want {
				t.Fatalf("recorded %+v, %v; want %v", sigs, err, tc.want)
			}
			_, finalErr := os.Stat(filepath.Join(dest, "x.bin"))
			_, partErr := os.Stat(filepath.Join(dest, "x.bin.part"))
			if tc.ok != (finalErr == nil) || tc.ok == (partErr == nil) {
				t.Fatalf("final name: %v, .part: %v", finalErr, partErr)
			}
		})
	}
}
