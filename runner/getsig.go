package runner

import (
	"context"
	"io"

	"braid/engine"
	"braid/engine/signature"
	"braid/queue"
)

// checkSignature makes the engine check req's file's signature before its
// rename (so a bad signature leaves the file NAME.part), recording the
// outcome with the file's job, as a queue run does (signatureCheck),
// and returns where the outcome will be once the download has ended.
func (g *Get) checkSignature(req *engine.Request) *signature.Outcome {
	out := new(signature.Outcome)
	kr := signature.OpenKeyring(queue.KeysDir(g.dir))
	record := func(got signature.Outcome) error {
		*out = got
		id, ok := g.st.jobOf(req)
		if !ok {
			return nil
		}
		return g.st.open().SetSignature(id, req.File.Name, SignatureRecord(got))
	}
	// req.File is read when the check runs: a dynamic metalink's new
	// version comes with its own signature.
	req.Check = func(ctx context.Context, r io.Reader) error {
		return kr.CheckFunc(req.File.Signature, g.RequireSignature, record)(ctx, r)
	}
	return out
}
