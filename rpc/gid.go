package rpc

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"
)

// GID is a job's aria2 GID: 16 hex digits, the job's ID in the high 32
// bits and a hash of the moment it was added in the low 32. It is the
// same in every run of Braid for the same job (the queue keeps both). A
// GID is never given twice: the queue never gives a removed job's ID
// again (AUTOINCREMENT), and the added mark also keeps apart a job that
// got a freed ID from a database made before that.
func GID(id int64, added time.Time) string {
	return fmt.Sprintf("%08x%08x", uint32(id), addedMark(added))
}

func addedMark(t time.Time) uint32 {
	h := fnv.New32a()
	fmt.Fprint(h, t.UnixMilli())
	return h.Sum32()
}

// parseGID splits a GID into the job ID and the mark of when it was added.
// aria2 accepts a unique prefix of a GID; Braid wants all 16 digits.
func parseGID(gid string) (id int64, mark uint32, err error) {
	if len(gid) != 16 {
		return 0, 0, failf("Invalid GID %s", gid)
	}
	v, err := strconv.ParseUint(gid, 16, 64)
	if err != nil {
		return 0, 0, failf("Invalid GID %s", gid)
	}
	return int64(v >> 32), uint32(v), nil
}
