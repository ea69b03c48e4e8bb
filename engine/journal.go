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
