//go:build !headless

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWindowKeepsTheOrderGiven starts the real window with thirty links,
// `braid URL01 … URL30` as a user types it, then hands ten more to it
// from a second `braid`. The server answers the first links slowest, so a
// window that read them side by side would queue them in the order the
// answers came. The queue must hold them in the order given, both times.
func TestWindowKeepsTheOrderGiven(t *testing.T) {
	t.Parallel()
	_, bin, display := realWindow(t)

	const first, later = 30, 10
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/file-"), ".bin"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		// The first of each batch answers last.
		last := first
		if n > first {
			last = first + later
		}
		time.Sleep(time.Duration(last-n) * 10 * time.Millisecond)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(bytes.Repeat([]byte{byte(n)}, 1000+n)))
	}))
	defer srv.Close()
	links := func(from, to int) []string {
		var out []string
		for n := from; n <= to; n++ {
			out = append(out, fmt.Sprintf("%s/file-%02d.bin", srv.URL, n))
		}
		return out
	}

	b := newBraids(t, bin, display)
	// A plain link needs no picker: it is added as it is read.
	cmd := b.startWindow(t, append([]string{"--state", b.state}, links(1, first)...)...)
	b.waitAnswering(t, cmd)
	waitOrder(t, b, cmd, links(1, first))

	b.handOff(t, cmd, links(first+1, first+later)...)
	waitOrder(t, b, cmd, links(1, first+later))
	cmd.stop(t)
}

// waitOrder waits until the queue in b.state holds the jobs of want, in
// that order.
func waitOrder(t *testing.T, b *braids, w *window, want []string) {
	t.Helper()
	var got []string
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		var out, errs bytes.Buffer
		if code := cmdQueue(context.Background(), []string{"--state", b.state, "list", "--json"}, &out, &errs); code != 0 {
			continue // the queue not made yet
		}
		var jobs []queueJob
		if err := json.Unmarshal(out.Bytes(), &jobs); err != nil {
			t.Fatalf("braid queue list --json: %v\n%s", err, out.String())
		}
		got = got[:0]
		for _, j := range jobs {
			got = append(got, j.Source)
		}
		if len(got) >= len(want) {
			break
		}
	}
	if !slices.Equal(got, want) {
		short := func(s []string) []string {
			var out []string
			for _, l := range s {
				out = append(out, strings.TrimSuffix(l[strings.LastIndex(l, "-")+1:], ".bin"))
			}
			return out
		}
		t.Fatalf("the queue holds %v, want %v\nthe window said:\n%s", short(got), short(want), w.out)
	}
}
