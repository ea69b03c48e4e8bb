package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/queue"
)

// ErrNotVerified is the error of a file that was downloaded but that no
// published hash could check, when Get.RequireHash asks for one.
var ErrNotVerified = errors.New("not verified: no hash is published for it (--require-hash)")

// Get is `braid get`: it adds each source to the queue with Add (or finds
// the job an earlier get left, to resume it with the files selected now),
// runs those jobs with a Runner's RunJobs, lets the torrents among them
// seed as the BitTorrent choices say, and tells an Observer what happens.
// Ctrl-C (ctx's end) leaves the jobs paused with their progress, as in the
// window.
type Get struct {
	Dir   string // where the files go
	State string // the state folder; "" the default (queue.Dir)
	// Locations are the countries whose mirrors go first.
	Locations []string
	// Given are the --lang and --os the user gave (real filters), Defaults
	// the system's, which only narrow choices (see metalink.Select).
	Given, Defaults metalink.Prefs
	Client          *engine.Client
	// Net is the sources' logins, cookies and headers (nil: none but
	// .netrc's and what the links carry).
	Net *netconf.Session
	// RequireHash makes a file no published hash could check a failure;
	// RequireSignature one that no key of the keyring signed.
	RequireHash, RequireSignature bool
	// RetryFor bounds how long a source or file waits for the network
	// (0: for ever).
	RetryFor time.Duration
	// Jobs is how many sources download at once.
	Jobs int
	// InOrder fetches each file from its start (queue.InOrder), to use it
	// while it arrives.
	InOrder bool
	// Par2 is --par2's parity set (ParityArg) for the file of a plain
	// URL; nil uses the parity a metalink lists beside each file.
	Par2 *Parity
	// Torrent is the BitTorrent choices (braid get's --seed-ratio, --bt-*).
	Torrent  TorrentOptions
	Observer Observer
}

// Run gets every source, up to Jobs at once in the order given, and
// reports whether every selected file of every source is done (verified,
// or not verified where nothing is published and RequireHash is off).
// When the state folder cannot be opened it says so through the Observer
// and returns false.
func (g *Get) Run(ctx context.Context, sources []string) bool {
	state := func(err error) bool {
		g.Observer.Note(Note{Kind: NoteState, Err: err})
		return false
	}
	// Each source is read before it is added; the first while the queue
	// opens: a link's round trip to its server, or a large document's
	// parsing, overlaps the queue's start.
	first := make(chan read, 1)
	reading, stopReading := context.WithCancel(ctx)
	var read1 sync.WaitGroup
	defer func() { stopReading(); read1.Wait() }() // when the queue did not open
	if len(sources) > 0 {
		read1.Go(func() { first <- g.read(reading, sources[0]) })
	}
	if err := os.MkdirAll(g.Dir, 0o755); err != nil {
		return state(fmt.Errorf("-d: %w", err))
	}
	dir, err := queue.Dir(g.State)
	if err != nil {
		return state(err)
	}
	q, err := queue.Open(dir)
	if err != nil {
		return state(err)
	}
	defer q.Close()
	for _, n := range q.Notices() {
		// A damaged database moved aside and a new queue started: the
		// user would otherwise find their queue empty without a word.
		g.Observer.Note(Note{Kind: NoteState, Message: n})
	}
	r := &Runner{Queue: q, Client: g.Client, Locations: g.Locations, TorrentOptions: g.Torrent,
		RequireHash: g.RequireHash, RequireSignature: g.RequireSignature, RetryFor: g.RetryFor,
		Observer: g.Observer, Jobs: g.Jobs, Parity: g.Par2}
	defer r.Close()
	// The sources are added one after the other while the first ones
	// run: reading a link takes a round trip to its server.
	ok := true
	var ids []int64
	sent := make(chan int64)
	added := make(chan struct{})
	adding, stopAdding := context.WithCancel(ctx) // RunJobs may end first, on an error
	go func() {
		defer close(added)
		defer close(sent)
		for i, src := range sources {
			if adding.Err() != nil {
				ok = false
				return
			}
			var got read
			if i == 0 {
				got = <-first
			} else {
				got = g.read(adding, src)
			}
			id, whole := g.add(adding, q, src, got)
			ok = ok && whole
			if id == 0 {
				continue
			}
			ids = append(ids, id)
			select {
			case sent <- id:
			case <-adding.Done():
				return
			}
		}
	}()
	err = r.RunJobs(ctx, sent)
	stopAdding()
	<-added
	if err != nil {
		ok = false
	}
	r.Seed(ctx)
	for _, id := range ids {
		if s, err := q.StateOf(id); err != nil || s != queue.Done {
			ok = false
		}
	}
	return ok && ctx.Err() == nil
}

// read is a source as Resolve read it, or why it could not.
type read struct {
	r   *Resolved
	err error
}

// read reads src as get does: through the Client's proxy route with the
// sources' logins, cookies and headers, and a plain link that
// cannot be reached waits for the network.
func (g *Get) read(ctx context.Context, src string) read {
	o := ReadThrough(g.Client, g.Net)
	o.Unread = WaitUnreached
	r, err := Resolve(ctx, src, o)
	return read{r, err}
}

// add adds src, read as got, with Add, telling the Observer what reading
// it found: its warnings, how the filters chose, the files they left out
// and the ones the document refused. It returns the job (0: none) and
// whether the source was taken whole.
func (g *Get) add(ctx context.Context, q *queue.Queue, src string, got read) (int64, bool) {
	o := AddOptions{
		Dir:     g.Dir,
		Select:  &Selection{Given: g.Given, Defaults: g.Defaults},
		Again:   ResumeSource,
		InOrder: g.InOrder,
		Paused:  true, // RunJobs takes it: no other runner may first
		Read:    got.r,
	}
	if g.Net != nil {
		s := g.Net.Settings()
		o.Net = &s
	}
	var added Added
	err := got.err
	if err == nil {
		added, err = Add(ctx, q, src, o)
	}
	if doc := added.Doc; doc != nil {
		for _, w := range doc.Warnings {
			g.Observer.Note(Note{Kind: NoteWarning, Source: src, Message: w})
		}
		for _, n := range added.Notes {
			g.Observer.Note(Note{Kind: NoteSelection, Source: src, Message: n})
		}
		for _, s := range added.Skipped {
			g.Observer.Note(Note{Kind: NoteSkipped, Source: src, File: s.Name, Message: s.Why})
		}
	}
	switch {
	case errors.Is(err, ErrNoneSelected):
		err = fmt.Errorf("%s: no file matches the language and OS filters (see --lang, --os)", src)
	case err != nil && linkExpired(err, true):
		// A job of this link with bytes kept: the link expired.
		if e := pauseExpired(q, src, g.Dir, err); e != nil {
			err = e
		}
	}
	whole := err == nil
	if added.Doc != nil {
		for _, rj := range added.Doc.Rejected {
			g.Observer.Result(Result{Source: src, File: rj.Name, Err: fmt.Errorf("%s: refused: %s", rj.Name, rj.Reason)})
			whole = false
		}
	}
	if err != nil && !(errors.Is(err, ErrNoFiles) && !whole) {
		g.Observer.Result(Result{Source: src, Err: err})
	}
	return added.ID, whole
}
