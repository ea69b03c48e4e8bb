package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/resourcesync"
	sourcekind "braid/engine/source"
	"braid/engine/torrent"
	"braid/queue"
)

// AddOptions say how Add adds a source.
type AddOptions struct {
	// Dir is the folder to save in; the caller decides it.
	Dir string
	// Sort puts the job in the folder of its files' category when Dir is
	// the download folder (SortDoc).
	Sort bool

	// Doc is the document the caller read (the picker's); nil: Add reads
	// the source (Resolve). Origin is what its server said, and Spec the
	// torrent it was read from, if it was; a Spec without Doc is a
	// torrent the caller read (from bytes), made into its document here.
	Doc    *metalink.Document
	Origin queue.Origin
	Spec   *torrent.Spec

	// Files are the names of the files to get, as the user ticked them;
	// nil: all of them, or those Select chooses when it is set.
	Files []string
	// Select chooses the files by the filters the user gave and the
	// system's defaults (metalink.Select) when Files is nil.
	Select *Selection

	// Mirrors are more links of the source: mirrors of a one-file plain
	// link's file, or a torrent's web seeds.
	Mirrors []string
	// Out names a one-file download's file.
	Out string
	// Member makes the job fetch this member of the ZIP archive the
	// document describes (one file, the archive; a torrent's given as the
	// file of its web seeds, without Spec) instead of the archive
	// (queue.NewJob.Member). Files, Select and Out are then unused, and
	// the member's name is what Sort sorts by. A member job is never
	// found: Again is for whole sources.
	Member *queue.Member
	// Referer is the page the link was found on, kept as the job's.
	Referer string
	// Net are the headers, cookies and user agent the source is read
	// with and, but for a torrent, the job keeps (queue.NewJob.Net: their
	// values stay out of state.db); nil: none.
	Net *netconf.Settings
	// Login is a user and password for the source's server, given to the
	// job's mirrors on the same host.
	Login *Login
	// Limit is the job's own speed limit in bytes per second; 0: none.
	Limit int64
	// InOrder makes the job fetch each file from its start
	// (queue.InOrder).
	InOrder bool
	// Paused adds the job without queueing it.
	Paused bool
	// Again is what is done with a source the queue has a job of.
	Again Again
	// Unread is why the caller could not read the source (Doc is then
	// its placeholder, UnreachedDoc): the job is added failed with it,
	// whatever the reason.
	Unread error

	// Resolve is how Add reads a source it is not given a document of.
	Resolve ResolveOptions
	// Read is the source as Resolve read it, when the caller read it
	// already (braid get reads each itself, the first while the queue opens);
	// nil: Add reads it, or takes Doc and Spec.
	Read *Resolved

	// Sync adds a sync job: Dir kept a verified copy of the ResourceSync
	// source (queue.NewJob.Sync), which its runs read. The sync job the
	// queue has of the source and folder is found, and queued to sync
	// again unless it runs or waits its turn already. Only Dir, Paused,
	// Net (which replaces a found job's) and Again's finding apply.
	Sync bool
}

// addSync is Add of a sync job.
func addSync(q *queue.Queue, source string, o AddOptions) (Added, error) {
	if _, err := resourcesync.Base(source); err != nil {
		return Added{}, err
	}
	id, err := q.Add(queue.NewJob{Sync: true, Source: source, Dest: o.Dir, Paused: true})
	if err != nil {
		return Added{}, err
	}
	added := Added{ID: id}
	if err := keepNet(q, id, o.Net, &added); err != nil {
		return Added{}, err
	}
	s, err := q.StateOf(id)
	if err != nil {
		return Added{}, err
	}
	if s == queue.Queued || s == queue.Running {
		added.Found = true
		return added, nil
	}
	if o.Paused {
		return added, nil
	}
	if err := q.SetState(id, queue.Queued); err != nil {
		return Added{}, err
	}
	added.Queued = true
	return added, nil
}

// Again is what Add does with a source the queue has a job of.
type Again uint8

const (
	// AddAgain adds another job, as aria2 adds a link twice.
	AddAgain Again = iota
	// FindTorrent finds the job of the same torrent however it was added
	// (one client runs a torrent once, so a second job of it could only
	// fail); any other source is added again.
	FindTorrent
	// FindSource is FindTorrent, and finds the newest job of the same
	// source (in its canonical spelling) and folder too.
	FindSource
	// ResumeSource is FindSource, and a job found of a source read now
	// takes the files selected now (Queue.Reselect; not while another run
	// holds it), its network settings and its order, to run again from
	// what it kept (braid get).
	ResumeSource
)

// Selection is what metalink.Select chooses files by.
type Selection struct {
	Given, Defaults metalink.Prefs
}

// Login is a login given for a source's server.
type Login struct {
	User, Password string
	// Remember keeps the password in the system's keyring; otherwise it
	// lasts for this session (queue.Queue.SetLogin).
	Remember bool
}

// Added is what Add did.
type Added struct {
	// ID is the job's.
	ID int64
	// Found: the queue had the job already; nothing was added or changed.
	Found bool
	// Queued: the job is queued, and the runner should be woken.
	Queued bool
	// Failed is why the source could not be read: the job is listed,
	// failed with it, for the user to try again.
	Failed error
	// Waiting: the source's server cannot be reached now; the job waits
	// and tries again.
	Waiting bool
	// Notes are for the user: what the default filters did not narrow,
	// and the keyring's note when secrets are kept for this session only.
	Notes []string
	// Doc is the document read, its warnings and the files it refused
	// with it; nil when the job was found without reading the source.
	Doc *metalink.Document
	// Skipped are the files Select left out, with why.
	Skipped []Skipped
}

// Skipped is a file Select left out.
type Skipped struct {
	Name, Why string
}

// ErrNoneSelected is Add's error when no file of the source fits the
// filters given.
var ErrNoneSelected = errors.New("no file fits the filters given")

// ErrNoFiles is Add's error for a source that lists no file it can
// download (a document whose every file was refused: Added.Doc says why).
var ErrNoFiles = errors.New("the source lists no file")

// Add is the one way a job enters the queue, for the window, the RPC
// server and the browsers' native host: it reads the source (or takes the
// document its caller read, as the window's picker does), selects the
// files, finds the job the queue has of it already or adds one paused
// (with its network settings, in one transaction, their secrets out of
// state.db), stores what else goes with it (its torrent, a login, a speed
// limit) while it is paused, so no runner takes it without them, and only
// then queues it. Waking the runner is the caller's.
func Add(ctx context.Context, q *queue.Queue, source string, o AddOptions) (Added, error) {
	if o.Sync {
		return addSync(q, source, o)
	}
	if o.Read == nil && o.Doc == nil && o.Spec == nil && o.Net != nil {
		// The source itself may be behind the cookie or header.
		ss, err := o.Net.Open()
		if err != nil {
			return Added{}, err
		}
		o.Resolve = o.Resolve.Wearing(ss)
	}
	r := &Resolved{Doc: o.Doc, Origin: o.Origin, Spec: o.Spec, Unread: o.Unread}
	switch {
	case o.Read != nil:
		r = o.Read
	case o.Doc == nil && o.Spec != nil:
		doc, err := torrent.Document(o.Spec, source)
		if err != nil {
			return Added{}, fmt.Errorf("read the torrent: %w", err)
		}
		doc.Origin = source
		r.Doc = doc
	case o.Doc == nil:
		var err error
		if r, err = Resolve(ctx, source, o.Resolve); err != nil {
			return Added{}, err
		}
	}
	added := Added{Doc: r.Doc}
	if len(r.Doc.Files) == 0 {
		return added, fmt.Errorf("%s: %w", queue.Redact(source), ErrNoFiles)
	}
	if o.Member != nil && r.Spec != nil {
		return Added{}, fmt.Errorf("%s: the files inside a torrent are read from its web seeds: give the document of its web seeds", queue.Redact(source))
	}
	if r.Spec != nil && o.Again != AddAgain {
		if id, found, err := q.TorrentJob(r.Spec.InfoHash); err == nil && found {
			return found1(q, id, o, added)
		}
	}
	if r.Spec != nil {
		r.Spec.WebSeeds = append(r.Spec.WebSeeds, o.Mirrors...)
	} else if err := addMirrors(source, r.Doc, o.Mirrors); err != nil {
		return Added{}, err
	}
	files := o.Files
	if o.Member != nil {
		files = []string{o.Member.Name}
	} else if err := rename(r.Doc, o.Out); err != nil {
		return Added{}, err
	}
	if files == nil && o.Select != nil {
		choices, notes := metalink.Select(r.Doc.Files, o.Select.Given, o.Select.Defaults)
		files = []string{}
		for i, c := range choices {
			if c.Selected {
				files = append(files, r.Doc.Files[i].Name)
			} else {
				added.Skipped = append(added.Skipped, Skipped{r.Doc.Files[i].Name, c.Why})
			}
		}
		if len(files) == 0 {
			return added, fmt.Errorf("%s: %w", queue.Redact(source), ErrNoneSelected)
		}
		added.Notes = notes
	}
	dest := o.Dir
	if o.Sort {
		dest = SortDoc(q, dest, r.Doc, files)
	}
	if o.Referer != "" {
		r.Origin.Referer = o.Referer
	}
	if o.Again >= FindSource && o.Member == nil {
		if id, found, err := q.JobFor(source, dest); err == nil && found {
			// A job another run holds keeps its files: RunJobs refuses it.
			if s, err := q.StateOf(id); o.Again == ResumeSource && r.Unread == nil && err == nil && s != queue.Running {
				if err := q.Reselect(id, selectedFiles(r.Doc, files), r.Origin, queue.Unselect); err != nil {
					return Added{}, err
				}
			}
			return found1(q, id, o, added)
		}
	}
	if r.Unread != nil {
		if o.Unread == nil && NetworkError(r.Unread) {
			added.Waiting = true // it waits and tries again as it runs
		} else {
			added.Failed = r.Unread
		}
	}
	var netNote string
	nj := queue.NewJob{Source: source, Dest: dest, Doc: r.Doc, Selected: files, Origin: r.Origin, NetNote: &netNote, Paused: true}
	if r.Spec == nil {
		nj.Net = o.Net // not a torrent's: peers need no cookie
	}
	if o.Member != nil {
		nj.Selected, nj.Member = nil, *o.Member
	}
	id, err := q.Add(nj)
	if err != nil {
		return Added{}, err
	}
	added.ID = id
	if netNote != "" {
		added.Notes = append(added.Notes, netNote)
	}
	if err := keepWith(q, id, source, r, o, &added); err != nil {
		_ = q.Remove(id)
		return Added{}, err
	}
	switch {
	case added.Failed != nil:
		err = q.Fail(id, added.Failed)
	case !o.Paused:
		err = q.Resume(id)
		added.Queued = err == nil
	}
	if err != nil {
		_ = q.Remove(id)
		return Added{}, err
	}
	return added, nil
}

// keepWith stores what goes with new job id, still paused, that the
// queue does not add with it: its torrent, a login and its speed limit.
func keepWith(q *queue.Queue, id int64, source string, r *Resolved, o AddOptions, added *Added) error {
	if r.Spec != nil {
		if err := q.SetTorrentSpec(id, r.Spec); err != nil {
			return err
		}
	}
	if o.Login != nil {
		note, err := SetLogin(q, id, o.Login.User, o.Login.Password, loginLinks(source, r.Doc), o.Login.Remember)
		if err != nil {
			return err
		}
		if note != "" {
			added.Notes = append(added.Notes, note)
		}
	}
	if o.InOrder {
		if err := q.SetJob(id, queue.InOrder(true)); err != nil {
			return err
		}
	}
	if o.Limit > 0 {
		return q.SetJob(id, queue.Limit(o.Limit))
	}
	return nil
}

// keepNet keeps net (nil: nothing) as job id's network settings, and
// SetNet's note among added's notes.
func keepNet(q *queue.Queue, id int64, net *netconf.Settings, added *Added) error {
	if net == nil {
		return nil
	}
	note, err := q.SetNet(id, *net, true)
	if note != "" {
		added.Notes = append(added.Notes, note)
	}
	return err
}

// found1 is what Add did with job id the queue had: nothing, but under
// ResumeSource, which gives it the network settings and order of this
// add.
func found1(q *queue.Queue, id int64, o AddOptions, added Added) (Added, error) {
	added.ID, added.Found = id, true
	if o.Again != ResumeSource {
		return added, nil
	}
	if err := keepNet(q, id, o.Net, &added); err != nil {
		return Added{}, err
	}
	if o.InOrder {
		if err := q.SetJob(id, queue.InOrder(true)); err != nil {
			return Added{}, err
		}
	}
	return added, nil
}

// selectedFiles are the files of doc named in names; all of them when
// names is nil.
func selectedFiles(doc *metalink.Document, names []string) []metalink.File {
	if names == nil {
		return doc.Files
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	var out []metalink.File
	for _, f := range doc.Files {
		if want[f.Name] {
			out = append(out, f)
		}
	}
	return out
}

// SetLogin gives job id the login user and password for the servers of
// links, over HTTP and FTP alike (a user answers one server's question),
// over the network settings it has (its cookies and headers
// stay). With remember the password is kept in the keyring where the
// system has one, and note says when it has none; without, it is kept for
// this session only. The password is never written to state.db.
func SetLogin(q *queue.Queue, id int64, user, password string, links []string, remember bool) (note string, err error) {
	if user == "" {
		return "", fmt.Errorf("job %d: a login without a user name: %w", id, netconf.ErrSettings)
	}
	s, _, _, err := q.Net(id)
	if err != nil {
		return "", err
	}
	s.HTTPUser, s.HTTPPasswd = user, password
	s.FTPUser, s.FTPPasswd = user, password
	for _, l := range links {
		s.Links = append(s.Links, queue.Redact(l))
	}
	return q.SetNet(id, s, remember)
}

// loginLinks are the links a login for source is given to: the source
// and the document's mirrors on its host.
func loginLinks(source string, doc *metalink.Document) []string {
	links := []string{source}
	u, err := url.Parse(source)
	if err != nil {
		return links
	}
	for _, f := range doc.Files {
		for _, m := range f.URLs {
			if mu, err := url.Parse(m.URL); err == nil && strings.EqualFold(mu.Host, u.Host) {
				links = append(links, m.URL)
			}
		}
	}
	return links
}

// addMirrors adds links to the one file of doc, as mirrors of the lowest
// priority.
func addMirrors(source string, doc *metalink.Document, links []string) error {
	if len(links) == 0 {
		return nil
	}
	if len(doc.Files) != 1 {
		return fmt.Errorf("%s holds %d files: more links can only be mirrors of one file", queue.Redact(source), len(doc.Files))
	}
	f := &doc.Files[0]
	for _, l := range links {
		if !f.HasURL(l) {
			f.URLs = append(f.URLs, metalink.URL{URL: l, Priority: metalink.LowestPriority})
		}
	}
	return nil
}

// rename saves a one-file download under out; "" keeps its name.
func rename(doc *metalink.Document, out string) error {
	if out == "" {
		return nil
	}
	if len(doc.Files) != 1 {
		return fmt.Errorf("the out option names one file; this download has %d", len(doc.Files))
	}
	if err := metalink.SafeName(out); err != nil {
		return fmt.Errorf("the out option %q: %w", out, err)
	}
	doc.Files[0].Name = out
	return nil
}

// Resolved is a source read for adding.
type Resolved struct {
	Doc    *metalink.Document
	Origin queue.Origin  // what a plain link's server said
	Spec   *torrent.Spec // a torrent's, with its metadata when it was fetched
	Unread error         // why the link could not be read: Doc is its placeholder
}

// ResolveOptions say how a source is read.
type ResolveOptions struct {
	// HTTPClient reads URLs; nil: the transport's default.
	HTTPClient *http.Client
	// Network and Session are what an ftp link is read through: the
	// proxy route and the logins (HTTPClient wears both for http).
	Network *netconf.Network
	Session *netconf.Session
	// Metadata fetches a magnet link's metadata from its peers, so its
	// files are known; nil: the link is one file standing for the torrent
	// until a run fetches it.
	Metadata func(context.Context, *torrent.Spec) (*torrent.Spec, error)
	// Unread is what a plain link that cannot be read becomes.
	Unread Unread
}

// Wearing is o with the logins, cookies and headers of ss on HTTP (its
// client) and FTP (its session) alike; nil ss: o as it is.
func (o ResolveOptions) Wearing(ss *netconf.Session) ResolveOptions {
	if ss != nil {
		o.HTTPClient, o.Session = ss.Client(o.HTTPClient), ss
	}
	return o
}

// ReadThrough are the options that read a source as c's downloads with
// the settings ss run: through c's network (the proxy route), wearing ss
// (nil: no settings of their own).
func ReadThrough(c *engine.Client, ss *netconf.Session) ResolveOptions {
	return ResolveOptions{HTTPClient: c.HTTPClient(), Network: c.Network}.Wearing(ss)
}

// Unread is what Resolve makes of a plain link that cannot be read. A link
// to a metalink or a torrent is refused whatever it says: its file would
// be the document itself.
type Unread uint8

const (
	// RefuseUnread refuses it, with the reason.
	RefuseUnread Unread = iota
	// WaitUnreached makes a link whose server cannot be reached now its
	// placeholder (UnreachedDoc), a job that waits and tries again; any
	// other reason refuses it.
	WaitUnreached
	// ListUnread makes it its placeholder whatever the reason, as aria2
	// lists a link it cannot read: one the network keeps from the server
	// waits and tries again, any other fails with its reason.
	ListUnread
)

// ResolveError is an error of reading a torrent, kept in its parts so a
// face can say it in the user's language: Format (with the source and the
// cause, in that order) is the text to translate.
type ResolveError struct {
	Format string
	Source string // without credentials
	Err    error
}

func (e *ResolveError) Error() string { return fmt.Errorf(e.Format, e.Source, e.Err).Error() }
func (e *ResolveError) Unwrap() error { return e.Err }

// Resolve reads a source into the document to add: a magnet link or a
// .torrent (file or URL) with engine/torrent, anything else with
// ResolveSource, a plain link that cannot be read as o.Unread says.
func Resolve(ctx context.Context, source string, o ResolveOptions) (*Resolved, error) {
	if sourcekind.Of(source).IsTorrent() {
		return resolveTorrent(ctx, source, o)
	}
	doc, origin, err := ResolveSource(ctx, source, o)
	if err == nil {
		return &Resolved{Doc: doc, Origin: origin}, nil
	}
	if ctx.Err() != nil || o.Unread == RefuseUnread || (o.Unread == WaitUnreached && !NetworkError(err)) {
		return nil, err
	}
	later, ok := UnreachedDoc(source)
	if !ok {
		return nil, err
	}
	return &Resolved{Doc: later, Unread: err}, nil
}

func resolveTorrent(ctx context.Context, source string, o ResolveOptions) (*Resolved, error) {
	shown := queue.Redact(source)
	spec, err := torrent.Resolve(ctx, source, o.HTTPClient)
	if err != nil {
		return nil, &ResolveError{"read the torrent %s: %w", shown, err}
	}
	if spec.InfoBytes == nil && o.Metadata != nil {
		if spec, err = o.Metadata(ctx, spec); err != nil {
			return nil, &ResolveError{"fetch the metadata of %s: %w", shown, err}
		}
	}
	doc, err := torrent.Document(spec, source)
	if err != nil {
		return nil, &ResolveError{"read the torrent %s: %w", shown, err}
	}
	doc.Origin = source
	return &Resolved{Doc: doc, Spec: spec}, nil
}

// UnreachedFile is the one file of a plain link whose server cannot be
// reached now (or whose reading failed): named after the link, of a size
// not known yet, with the link as its mirror, so the link can be a job
// that waits and tries again rather than be refused. A link to a metalink
// or a torrent has none (false): its file would be the document itself.
func UnreachedFile(source string) (metalink.File, bool) {
	if sourcekind.Of(source).Kind() != sourcekind.Link {
		return metalink.File{}, false
	}
	u, _ := url.Parse(source)
	name := path.Base(u.Path)
	if metalink.SafeName(name) != nil {
		name = u.Hostname()
	}
	if metalink.SafeName(name) != nil {
		return metalink.File{}, false
	}
	return metalink.File{Name: name, Size: -1, URLs: []metalink.URL{{URL: source, Priority: 1}}}, true
}

// UnreachedDoc is the document of a plain link whose server cannot be
// reached now: its one file is UnreachedFile's. Added, it is a job that
// waits and tries again like any waiting job, for get, the window and the
// RPC server alike; false for a link that has no such file.
func UnreachedDoc(source string) (*metalink.Document, bool) {
	f, ok := UnreachedFile(source)
	if !ok {
		return nil, false
	}
	return &metalink.Document{Version: 4, Files: []metalink.File{f}}, true
}
