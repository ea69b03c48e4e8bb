package engine

// Journal records a download's durable progress; the queue implements it,
// and a headless download may pass nil.
//
// The engine calls PiecesDone only after the named pieces were verified (or,
// without piece hashes, fully written) and their bytes synced to disk, so a
// journal that survives a crash never counts a piece that is not on disk.
// Calls are batched, at most about a second apart, and come from one
// goroutine per download.
type Journal interface {
	PiecesDone(file string, pieces []int) error
}

// KeptJournal is a Journal that also holds how many bytes a stopped
// download keeps inside pieces it did not finish (files without piece
// hashes, see partial.go), so a paused job shows the progress it keeps.
// The engine calls KeptBytes only after those bytes are synced, and with
// 0 when a run starts writing into those pieces again, so a crash never
// leaves a count of bytes the next run would not keep.
type KeptJournal interface {
	Journal
	KeptBytes(file string, n int64) error
}
