package runner

import (
	"context"
	"slices"
	"time"

	"braid/engine/metalink"
	"braid/queue"
)

// Add first, reach later, for get: a plain link whose server cannot be
// reached is a job in the queue at once, waiting with its next try, while
// get waits for the server (resolveWaiting), so that `queue list` and the
// window show it from the start. When the link answers, get's own record
// of the files it will download takes the job over (PrepareFiles finds it
// by its source and folder); when get gives up, the job fails with the
// reason.

// waitingJob is the job recorded for a source get waits for; the zero
// value is none.
type waitingJob struct {
	id   int64
	name string // its one file, named after the link
}

// noteUnreached records src's job the first time its server cannot be
// reached (w is zero), and each time keeps its next try in the queue. A
// queue that cannot take it costs only the early sight of the job.
func (g *Get) noteUnreached(ctx context.Context, src string, w waitingJob, next time.Time) waitingJob {
	if g.st == nil {
		return w
	}
	q, err := g.st.queue()
	if err != nil {
		return w
	}
	if w.id == 0 {
		doc, ok := UnreachedDoc(src)
		if !ok {
			return w
		}
		id, _, err := q.PrepareFiles(src, g.Dir, doc, doc.Files, queue.Origin{})
		if err != nil {
			return w
		}
		g.st.keepNet(q, id)
		w = waitingJob{id: id, name: doc.Files[0].Name}
	}
	_ = q.SetWaiting(w.id, next)
	return w
}

// reached hands src's waiting job over to the files the link turned out to
// have: when they do not include the file it was recorded with (the server
// named it otherwise), the job is removed and get records the files anew;
// when the link failed for good, the job fails with err.
func (g *Get) reached(src string, w waitingJob, doc *metalink.Document, err error) {
	if w.id == 0 {
		return
	}
	q, qerr := g.st.queue()
	if qerr != nil {
		return
	}
	if err != nil {
		_ = q.Fail(w.id, err)
		return
	}
	_ = q.SetWaiting(w.id, time.Time{})
	if !slices.ContainsFunc(doc.Files, func(f metalink.File) bool { return f.Name == w.name }) {
		_ = q.Remove(w.id)
	}
}
