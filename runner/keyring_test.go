package runner

import (
	"encoding/json"
	"testing"

	"braid/engine/signature"
	"braid/queue"
	"braid/queue/queuetest"
)

// TestSignatureRecordsReadAsBefore: the queue stores a signature outcome
// as its own plain record; a row written before, as the engine's
// signature.Outcome in JSON, reads back as the same outcome, and every
// outcome goes through SignatureRecord and Outcome unchanged. A zero
// outcome clears what was recorded.
func TestSignatureRecordsReadAsBefore(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: "s.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "old.bin", "new.bin")})
	if err != nil {
		t.Fatal(err)
	}
	old := signature.Outcome{Status: signature.UnknownKey, Fingerprint: "ABCD1234", Note: "expired since"}
	raw, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queuetest.RawDB(t, q.Path()).Exec(`UPDATE files SET signature = ? WHERE job = ? AND name = 'old.bin'`, string(raw), id); err != nil {
		t.Fatal(err)
	}
	for _, o := range []signature.Outcome{
		{Status: signature.Good, Fingerprint: "FFFF", Signer: "Alice <a@example.org>"},
		{Status: signature.Bad, Note: "the bytes changed"},
		{Status: signature.Unreadable, Note: "no media type"},
	} {
		if got := Outcome(SignatureRecord(o)); got != o {
			t.Errorf("%+v went through the queue's record as %+v", o, got)
		}
	}
	want := signature.Outcome{Status: signature.Good, Fingerprint: "FFFF", Signer: "Alice <a@example.org>"}
	if err := q.SetFile(id, "new.bin", queue.Signed(SignatureRecord(want))); err != nil {
		t.Fatal(err)
	}
	sigs, err := Signatures(q, id)
	if err != nil {
		t.Fatal(err)
	}
	if sigs["old.bin"] != old || sigs["new.bin"] != want || len(sigs) != 2 {
		t.Errorf("read %+v; want old.bin %+v and new.bin %+v", sigs, old, want)
	}
	if err := q.SetFile(id, "new.bin", queue.Signed(SignatureRecord(signature.Outcome{}))); err != nil {
		t.Fatal(err)
	}
	if sigs, err := Signatures(q, id); err != nil || len(sigs) != 1 {
		t.Errorf("after clearing new.bin: %+v, %v; want old.bin alone", sigs, err)
	}
}
