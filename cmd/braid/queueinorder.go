package main

import (
	"fmt"
	"io"
	"strings"

	"braid/queue"
)

// parseOnOff reads braid queue in-order's switch: on or off (also yes/no,
// true/false, 1/0), in any case.
func parseOnOff(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "yes", "true", "1":
		return true, nil
	case "off", "no", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is neither on nor off", s)
}

// queueInOrder sets whether job id downloads in order and says what it
// now does. A runner running the job gives it to the next file it starts
// (a torrent, to its next start: pause and resume it).
func queueInOrder(q *queue.Queue, id int64, on bool, w io.Writer) error {
	if err := q.SetJob(id, queue.InOrder(on)); err != nil {
		return err
	}
	if on {
		fmt.Fprintf(w, "job %d downloads in order: its files from the front, to be used while they arrive\n", id)
	} else {
		fmt.Fprintf(w, "job %d downloads in the fastest order\n", id)
	}
	return nil
}
