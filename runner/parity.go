package runner

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/par2"
	"braid/engine/rootfile"
	"braid/queue"
)

// Parity is where a file's PAR2 parity set is: the index NAME.par2 and
// its volumes NAME.volXX+YY.par2, listed in the file's metalink, named by
// --par2 (a URL, whose volumes are found beside it by par2cmdline's
// naming) or on disk (--par2 FILE, its volumes beside it). It is used
// only when no mirror can send a piece good (engine.Request.Parity):
// then the index is fetched, and the fewest bytes of volumes that hold
// enough recovery blocks for the damage.
type Parity struct {
	// Index is the index file to fetch; Local, when not "", is its path
	// on disk instead (Index is then unused).
	Index metalink.File
	Local string
	// Volumes are the volumes known beforehand (a metalink's); when
	// Probe is set more are looked for beside Index's first URL.
	Volumes []ParityVolume
	Probe   bool
}

// ParityVolume is one volume of a Parity: the file to fetch (or Local,
// its path on disk), holding Blocks recovery blocks.
type ParityVolume struct {
	File   metalink.File
	Local  string
	Blocks int
}

// ParityOf returns the parity set doc lists for its file name, or nil.
func ParityOf(doc *metalink.Document, name string) *Parity {
	if doc == nil {
		return nil
	}
	return parityIn(doc, metalink.ParitySets(doc.Files), name)
}

// parityIn is ParityOf with doc's parity sets found already (a document
// of many files is looked through once, not once a file).
func parityIn(doc *metalink.Document, sets map[string]metalink.ParitySet, name string) *Parity {
	set, ok := sets[name]
	if !ok || set.Index < 0 {
		return nil
	}
	p := &Parity{Index: doc.Files[set.Index]}
	for _, v := range set.Volumes {
		p.Volumes = append(p.Volumes, ParityVolume{File: doc.Files[v.File], Blocks: v.Blocks})
	}
	return p
}

// ParityArg is --par2's value: a URL of an index (its volumes are looked
// for beside it when needed) or the path of one on disk (its volumes are
// the files beside it in par2cmdline's naming).
func ParityArg(arg string) (*Parity, error) {
	if u, err := url.Parse(arg); err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "ftp") {
		name := path.Base(u.Path)
		if !strings.EqualFold(path.Ext(name), ".par2") {
			return nil, fmt.Errorf("--par2 %s: the index of a parity set is a .par2 file", queue.Redact(arg))
		}
		return &Parity{Index: metalink.File{Name: name, Size: -1, URLs: []metalink.URL{{URL: arg}}}, Probe: true}, nil
	}
	st, err := os.Stat(arg)
	if err != nil {
		return nil, fmt.Errorf("--par2 %s: %w", arg, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("--par2 %s is not a file", arg)
	}
	p := &Parity{Local: arg}
	vols, err := par2.Volumes(arg)
	if err != nil {
		return nil, fmt.Errorf("--par2 %s: %w", arg, err)
	}
	for _, v := range vols {
		blocks := volumeBlocks(filepath.Base(v))
		st, err := os.Stat(v)
		if blocks <= 0 || err != nil {
			continue
		}
		p.Volumes = append(p.Volumes, ParityVolume{File: metalink.File{Name: filepath.Base(v), Size: st.Size()}, Local: v, Blocks: blocks})
	}
	return p, nil
}

// For says whether p is the parity set of the file name, by the name of
// its index (NAME.par2); a set whose index has another name may still be.
func (p *Parity) For(name string) bool {
	index := p.Local
	if index == "" {
		index = p.Index.Name
	}
	of, ok := metalink.ParityOf(filepath.Base(index))
	return ok && of == path.Base(name)
}

// volumeBlocks is the recovery blocks a volume's name (NAME.volXX+YY.par2)
// says it holds; 0 for any other name.
func volumeBlocks(name string) int {
	_, first, blocks, ok := metalink.ParityName(name)
	if !ok || first < 0 {
		return 0
	}
	return blocks
}

// parityFetch is how a mend fetches the parity set's files: through the
// download's own engine client (its mirrors, proxies and logins), into a
// scratch folder that is removed afterwards.
type parityFetch struct {
	client   *engine.Client
	net      *netconf.Session
	retryFor time.Duration
}

// httpClient is what probes for volumes (HEAD).
func (pf parityFetch) httpClient() *http.Client { return pf.net.Client(pf.client.HTTPClient()) }

// mender returns the engine's Request.Parity for p: what Braid does when
// no mirror can send pieces of a file good.
func (p *Parity) mender(pf parityFetch, dir string) func(context.Context, *engine.Mend) error {
	return func(ctx context.Context, m *engine.Mend) error {
		return p.mend(ctx, pf, dir, m)
	}
}

// Mender is p's engine.Request.Parity (or RepairOptions.Parity) for a file
// in dir: it fetches the set's files with c (through net's logins, waiting
// up to retryFor for the network; 0: two minutes) into a scratch folder in
// dir that it removes afterwards, and rebuilds the damaged pieces in place.
// nil p gives nil.
func (p *Parity) Mender(c *engine.Client, net *netconf.Session, retryFor time.Duration, dir string) func(context.Context, *engine.Mend) error {
	if p == nil {
		return nil
	}
	return p.mender(parityFetch{client: c, net: net, retryFor: retryFor}, dir)
}

// mend fetches the index, maps the damaged pieces to the set's slices,
// fetches the fewest bytes of volumes that hold enough recovery blocks
// and rebuilds the slices in place, writing only within the damage.
func (p *Parity) mend(ctx context.Context, pf parityFetch, dir string, m *engine.Mend) error {
	scratch, err := os.MkdirTemp(dir, ".braid-parity-")
	if err != nil {
		return fmt.Errorf("a folder for the parity set: %w", err)
	}
	defer rootfile.RemoveAll(scratch)
	index := p.Local
	if index == "" {
		if index, err = pf.get(ctx, scratch, p.Index); err != nil {
			return fmt.Errorf("the index %s: %w", p.Index.Name, err)
		}
	}
	set, err := par2.Open(index)
	if errors.Is(err, par2.ErrNoMainPacket) {
		return fmt.Errorf("%s is not a PAR2 index, or its main packet is damaged", filepath.Base(index))
	}
	if err != nil {
		return err
	}
	fi, err := setFile(set, m)
	inIndex := set.RecoveryBlocks() // an index may hold some blocks too
	set.Close()
	if err != nil {
		return err
	}
	damaged, allowed, err := damagedSlices(ctx, set, fi, m)
	if err != nil {
		return err
	}
	need := len(damaged)
	vols := p.Volumes
	if p.Probe {
		if vols, err = probeVolumes(ctx, pf.httpClient(), p.Index, need); err != nil {
			return err
		}
	}
	short := func(have int) error {
		what := fmt.Sprintf("%d %s", m.Pieces, plural(m.Pieces, "piece", "pieces"))
		if m.Pieces == 0 {
			what = "the file"
		}
		return fmt.Errorf("not enough recovery blocks to rebuild %s: %d short (%d damaged PAR2 %s, %d recovery %s in the parity set)",
			what, need-have, need, plural(need, "slice", "slices"), have, plural(have, "block", "blocks"))
	}
	if need == 0 {
		return errors.New("the parity set finds no damaged slice: the bytes it describes differ from the ones the hashes want")
	}
	listed := inIndex
	for _, v := range vols {
		listed += v.Blocks
	}
	if listed < need {
		return short(listed)
	}
	paths := []string{index}
	left := slices.Clone(vols)
	for {
		set, err = par2.Open(paths...)
		if err != nil {
			return err
		}
		have := set.RecoveryBlocks()
		if have >= need {
			break
		}
		set.Close()
		pick := smallestVolumes(left, need-have, set.SliceSize)
		if len(pick) == 0 {
			return short(have)
		}
		for _, i := range pick {
			v := left[i]
			at := v.Local
			if at == "" {
				if at, err = pf.get(ctx, scratch, v.File); err != nil {
					return fmt.Errorf("the parity volume %s: %w", v.File.Name, err)
				}
			}
			paths = append(paths, at)
		}
		var rest []ParityVolume
		for i, v := range left {
			if !slices.Contains(pick, i) {
				rest = append(rest, v)
			}
		}
		left = rest
	}
	defer set.Close()
	files := []par2.ReadWriterAt{&within{m.Part, allowed}}
	reports := []par2.FileReport{{File: fi, Size: m.Size, Damaged: damaged}}
	if _, err := set.Repair(ctx, files, reports, par2.RepairOptions{}); err != nil {
		var shortErr *par2.ShortError
		if errors.As(err, &shortErr) {
			return short(shortErr.Available)
		}
		if strings.Contains(err.Error(), "still damaged after repair") {
			return fmt.Errorf("the parity set does not match the file's bytes (%w)", err)
		}
		return err
	}
	for _, n := range damaged {
		off := int64(n) * set.SliceSize
		end := min(off+set.SliceSize, m.Size)
		for _, a := range allowed {
			if lo, hi := max(off, a.Off), min(end, a.Off+a.Len); lo < hi {
				m.Wrote = append(m.Wrote, engine.Span{Off: lo, Len: hi - lo})
			}
		}
	}
	slices.SortFunc(m.Wrote, func(a, b engine.Span) int { return cmp.Compare(a.Off, b.Off) })
	return nil
}

// setFile finds the file m is in the set: a set of that one file, of its
// size, or the file of its name in a set of several.
func setFile(set *par2.Set, m *engine.Mend) (int, error) {
	base := path.Base(m.Name)
	for i, f := range set.Files {
		if (len(set.Files) == 1 || path.Base(f.Name) == base) && f.Size == m.Size {
			if len(set.Files) > 1 {
				return 0, fmt.Errorf("the parity set is for %d files; Braid rebuilds from a set made for %s alone", len(set.Files), base)
			}
			return i, nil
		}
	}
	if len(set.Files) == 1 {
		return 0, fmt.Errorf("the parity set is for %s of %d bytes, not for %s of %d bytes", set.Files[0].Name, set.Files[0].Size, base, m.Size)
	}
	return 0, fmt.Errorf("the parity set has no file %s of %d bytes", base, m.Size)
}

// damagedSlices maps the pieces to rebuild to the set's slices: of the
// slices that touch them, those that fail the set's checksums (a piece is
// often larger than a slice, and its damage smaller). It returns them with
// the byte runs a rebuild may write. Without piece hashes the other bytes
// are checked against the set too.
func damagedSlices(ctx context.Context, set *par2.Set, fi int, m *engine.Mend) ([]int, []engine.Span, error) {
	ss := set.SliceSize
	var touched []int
	for _, d := range m.Damaged {
		for n := d.Off / ss; n <= (d.Off+d.Len-1)/ss; n++ {
			if len(touched) == 0 || touched[len(touched)-1] < int(n) {
				touched = append(touched, int(n))
			}
		}
	}
	failing, err := set.CheckSlices(ctx, fi, m.Part, touched)
	if err != nil {
		return nil, nil, err
	}
	bad := map[int]bool{}
	for _, n := range failing {
		bad[n] = true
	}
	allowed := slices.Clone(m.Damaged)
	if !m.Checked {
		rep, err := set.Verify(ctx, fi, m.Part, m.Size)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range rep.Damaged {
			if !bad[n] {
				bad[n] = true
				off := int64(n) * ss
				allowed = append(allowed, engine.Span{Off: off, Len: min(ss, m.Size-off)})
			}
		}
	}
	out := make([]int, 0, len(bad))
	for n := range bad {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, allowed, nil
}

// within is a file a rebuild reads in full but writes only within spans:
// a slice rebuilt from parity may reach into pieces already proven, and
// those bytes stay as they are (the set's check of the slice after the
// rebuild covers them).
type within struct {
	f interface {
		io.ReaderAt
		io.WriterAt
	}
	spans []engine.Span
}

func (w *within) ReadAt(b []byte, off int64) (int, error) { return w.f.ReadAt(b, off) }

func (w *within) WriteAt(b []byte, off int64) (int, error) {
	end := off + int64(len(b))
	for _, s := range w.spans {
		lo, hi := max(off, s.Off), min(end, s.Off+s.Len)
		if lo >= hi {
			continue
		}
		if _, err := w.f.WriteAt(b[lo-off:hi-off], lo); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// smallestVolumes picks from vols the set that holds at least need
// recovery blocks in the fewest bytes (a size a document does not tell is
// taken as its blocks' size), by index into vols; nil when all of them
// hold too few.
func smallestVolumes(vols []ParityVolume, need int, sliceSize int64) []int {
	if need <= 0 {
		return nil
	}
	cost := make([]int64, len(vols))
	total := 0
	for i, v := range vols {
		cost[i] = v.File.Size
		if cost[i] < 0 {
			cost[i] = int64(v.Blocks) * (sliceSize + 68 + 4) // the packet around each block
		}
		total += v.Blocks
	}
	if total < need {
		return nil
	}
	if len(vols)*(need+1) > 1<<22 {
		return greedyVolumes(vols, cost, need)
	}
	// best[j]: the fewest bytes that hold at least j blocks, over the
	// volumes seen so far; took[i][j] whether volume i is in that choice.
	const none = int64(1) << 62
	best := make([]int64, need+1)
	for j := 1; j <= need; j++ {
		best[j] = none
	}
	took := make([][]bool, len(vols))
	for i, v := range vols {
		took[i] = make([]bool, need+1)
		for j := need; j >= 1; j-- {
			from := max(0, j-v.Blocks)
			if best[from] < none && best[from]+cost[i] < best[j] {
				best[j] = best[from] + cost[i]
				took[i][j] = true
			}
		}
	}
	var out []int
	for i, j := len(vols)-1, need; i >= 0 && j > 0; i-- {
		if took[i][j] {
			out = append(out, i)
			j = max(0, j-vols[i].Blocks)
		}
	}
	slices.Sort(out)
	return out
}

// greedyVolumes is smallestVolumes for sets too large to search: the
// cheapest bytes per block first.
func greedyVolumes(vols []ParityVolume, cost []int64, need int) []int {
	order := make([]int, len(vols))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := float64(cost[a])/float64(max(1, vols[a].Blocks)), float64(cost[b])/float64(max(1, vols[b].Blocks))
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	var out []int
	for _, i := range order {
		if need <= 0 {
			break
		}
		if vols[i].Blocks > 0 {
			out = append(out, i)
			need -= vols[i].Blocks
		}
	}
	slices.Sort(out)
	return out
}

// get downloads f into scratch with the engine and returns its path.
func (pf parityFetch) get(ctx context.Context, scratch string, f metalink.File) (string, error) {
	f.Name = path.Base(f.Name) // one flat scratch folder
	if err := metalink.SafeName(f.Name); err != nil {
		return "", err
	}
	retry := pf.retryFor
	if retry == 0 {
		retry = 2 * time.Minute
	}
	dl := pf.client.Do(ctx, &engine.Request{Dir: scratch, File: f, Net: pf.net, RetryFor: retry})
	if err := dl.Err(); err != nil {
		return "", err
	}
	return filepath.Join(scratch, f.Name), nil
}

// maxProbes bounds the HEAD requests that look for the volumes of a
// --par2 URL.
const maxProbes = 64

// probeVolumes finds, beside the index --par2 named, the volumes that
// par2cmdline's default naming gives a set: NAME.volXX+YY.par2 holding
// 1, 2, 4, ... recovery blocks from block 0, 1, 3, ..., the last one the
// rest, XX and YY zero-padded to the widths the largest of each takes.
// The set's block count is not in its index, so the widths are found by
// asking for the first volume (NAME.vol0+1.par2, vol00+01, ...); after
// it each full volume's name is known, and the last, shorter one is
// looked for only when the full ones hold too few blocks, and only with
// the counts that would be enough. It asks with HEAD and stops at
// maxProbes. (A set made with par2cmdline's -u, volumes of one size, is
// not found this way: list it in a metalink, or give --par2 a FILE.)
func probeVolumes(ctx context.Context, hc *http.Client, index metalink.File, need int) ([]ParityVolume, error) {
	if len(index.URLs) == 0 {
		return nil, errors.New("the parity index has no URL")
	}
	u, err := url.Parse(index.URLs[0].URL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("parity volumes are looked for beside an http or https index, not a %s one", u.Scheme)
	}
	base := strings.TrimSuffix(index.Name, path.Ext(index.Name))
	probes := 0
	name := func(first, count, wa, wb int) string {
		return fmt.Sprintf("%s.vol%0*d+%0*d.par2", base, wa, first, wb, count)
	}
	head := func(n string) (int64, bool, error) {
		if probes >= maxProbes {
			return 0, false, nil
		}
		probes++
		v := *u
		v.Path = path.Join(path.Dir(u.Path), n)
		v.RawPath = ""
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, v.String(), nil)
		if err != nil {
			return 0, false, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return 0, false, ctx.Err()
			}
			return 0, false, fmt.Errorf("looking for the parity volumes beside %s: %w", queue.Redact(index.URLs[0].URL), err)
		}
		resp.Body.Close()
		return resp.ContentLength, resp.StatusCode == http.StatusOK, nil
	}
	vol := func(n string, size int64, blocks int) ParityVolume {
		v := *u
		v.Path = path.Join(path.Dir(u.Path), n)
		v.RawPath = ""
		return ParityVolume{File: metalink.File{Name: n, Size: size, URLs: []metalink.URL{{URL: v.String()}}}, Blocks: blocks}
	}
	var out []ParityVolume
	wa, wb := 0, 0
widths:
	for w := 1; w <= 5; w++ {
		for _, pair := range [][2]int{{w, w}, {w + 1, w}, {w, w + 1}} {
			n := name(0, 1, pair[0], pair[1])
			size, ok, err := head(n)
			if err != nil {
				return nil, err
			}
			if ok {
				wa, wb = pair[0], pair[1]
				out = append(out, vol(n, size, 1))
				break widths
			}
		}
	}
	if wa == 0 {
		return nil, nil // no volume found: short by all it needs
	}
	have := 1
	first, count := 1, 2
	for ; have < need && len(fmt.Sprint(first)) <= wa && len(fmt.Sprint(count)) <= wb; first, count = first+count, count*2 {
		n := name(first, count, wa, wb)
		size, ok, err := head(n)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		out = append(out, vol(n, size, count))
		have += count
	}
	// The last volume holds the rest: fewer than count blocks from first.
	// Only one with at least the blocks still needed would do.
	for c := count - 1; have < need && c >= need-have && probes < maxProbes; c-- {
		if len(fmt.Sprint(first)) > wa || len(fmt.Sprint(c)) > wb {
			continue
		}
		n := name(first, c, wa, wb)
		size, ok, err := head(n)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, vol(n, size, c))
			break
		}
	}
	return out, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// withHash gives f, when it has no hash of its own and p mends it, the
// whole-file MD5 the set's index holds for it: a set is also the file's
// checksums, so the download is checked against them, and a mismatch
// mended from the set, rather than ending "not verified". f is returned
// as it was when the set is not for it, or its index cannot be read (the
// download then says it is not verified, and a rebuild, if one is asked
// for, says why).
func (p *Parity) withHash(ctx context.Context, f metalink.File, pf parityFetch, dir string) metalink.File {
	if len(f.Hashes) > 0 || f.Pieces != nil || !p.For(f.Name) {
		return f
	}
	index := p.Local
	if index == "" {
		scratch, err := os.MkdirTemp(dir, ".braid-parity-*")
		if err != nil {
			return f
		}
		defer rootfile.RemoveAll(scratch)
		if index, err = pf.get(ctx, scratch, p.Index); err != nil {
			return f
		}
	}
	set, err := par2.Open(index)
	if err != nil {
		return f
	}
	defer set.Close()
	if len(set.Files) != 1 || (f.Size >= 0 && set.Files[0].Size != f.Size) {
		return f
	}
	f.Hashes = []metalink.Hash{{Type: "md5", Value: hex.EncodeToString(set.Files[0].MD5[:])}}
	if f.Size < 0 {
		f.Size = set.Files[0].Size
	}
	return f
}

// parityFor is the Request.Parity of a queue job's file f: the parity
// set the job's document lists beside it, or nil.
func (jr *jobRun) parityFor(j queue.Job, f metalink.File) func(context.Context, *engine.Mend) error {
	if j.Doc == nil {
		return nil
	}
	p := parityIn(j.Doc, jr.parity, f.Name)
	if p == nil {
		return nil
	}
	return p.mender(jr.parityFetch(), j.Dest)
}

// parityFetch fetches a parity set's files as the job's own.
func (jr *jobRun) parityFetch() parityFetch {
	return parityFetch{client: jr.client, net: jr.net, retryFor: jr.r.RetryFor}
}
