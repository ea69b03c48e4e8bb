package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"braid/queue"
)

// parseJobLimit reads braid queue limit's RATE: a rate as --limit takes
// it (500K, 2M, 1.5G, bytes), or 0 or "none" for no limit of the job's
// own.
func parseJobLimit(s string) (int64, error) {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		return 0, nil
	}
	if strings.TrimSpace(s) == "" {
		return 0, fmt.Errorf(`want a rate such as 500K or 2M, or "none"`)
	}
	return parseRate(s)
}

// rateText is a rate for reading at a glance: 500 KiB/s; "-" for none.
func rateText(bps int64) string {
	if bps <= 0 {
		return "-"
	}
	return byteText(bps) + "/s"
}

// queueLimit sets job id's own speed limit (bytes per second, 0: none)
// and says what it now is. A runner running the job, in this process or
// another (the window, braid queue run), applies it within about a
// second, without restarting the download.
func queueLimit(q *queue.Queue, id, bps int64, w io.Writer) error {
	if err := q.SetJob(id, queue.Limit(bps)); err != nil {
		return err
	}
	if bps == 0 {
		fmt.Fprintf(w, "job %d has no speed limit of its own (the global limit still holds)\n", id)
		return nil
	}
	fmt.Fprintf(w, "job %d downloads at most %s (and within the global limit)\n", id, rateText(bps))
	return nil
}

// parseJobID is a job ID argument of braid queue SUB, or a message.
func parseJobID(sub, s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("braid queue %s: %q is not a job ID", sub, s)
	}
	return id, nil
}
