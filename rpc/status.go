package rpc

import (
	"encoding/hex"
	"slices"
	"strconv"

	"braid/engine/explain"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// wantFor is what the keys of a tellStatus need; no keys means all.
func wantFor(keys []string) Want {
	if len(keys) == 0 {
		return Want{URIs: true, Bitfield: true}
	}
	return Want{URIs: slices.Contains(keys, "files"), Bitfield: slices.Contains(keys, "bitfield")}
}

func statuses(jobs []Job, keys []string) []map[string]any {
	out := make([]map[string]any, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, status(j, keys))
	}
	return out
}

// status is aria2's tellStatus struct of j, with only keys when given.
// Numbers are strings, as in aria2. Keys that start with "braid" are
// Braid's own facts; aria2 clients ignore them.
func status(j Job, keys []string) map[string]any {
	errorCode, errorMessage, detail := errorOf(j)
	m := map[string]any{
		"gid":             GID(j.ID, j.AddedAt),
		"status":          string(j.State),
		"totalLength":     itoa(j.Length),
		"completedLength": itoa(j.Completed),
		"uploadLength":    itoa(j.Uploaded),
		"downloadSpeed":   itoa(j.Speed),
		"uploadSpeed":     itoa(j.UploadSpeed),
		"connections":     strconv.Itoa(j.Connections),
		"numPieces":       strconv.Itoa(j.Pieces),
		"pieceLength":     itoa(j.PieceLength),
		"dir":             j.Dir,
		"files":           files(j),
		"errorCode":       errorCode,
		"braidJobId":      itoa(j.ID),
		"braidName":       j.Name,
		"braidSource":     j.Source,
	}
	if errorMessage != "" {
		m["errorMessage"] = errorMessage
	}
	if detail != "" {
		m["braidErrorDetail"] = detail
	}
	if len(j.Bitfield) > 0 { // as aria2: none before a download knows its pieces
		m["bitfield"] = hex.EncodeToString(j.Bitfield)
	}
	if j.Checked != "" {
		m["braidChecked"] = j.Checked
	}
	if j.InfoHash != "" {
		m["infoHash"] = j.InfoHash
		m["numSeeders"] = strconv.Itoa(j.Seeders)
		m["seeder"] = strconv.FormatBool(j.Seeding)
		mode := "single"
		if len(j.Files) > 1 {
			mode = "multi"
		}
		trackers := j.Trackers
		if trackers == nil {
			trackers = [][]string{} // as aria2: a list, empty for a trackerless magnet
		}
		m["bittorrent"] = map[string]any{"mode": mode, "info": map[string]string{"name": j.Name}, "announceList": trackers}
	}
	if len(keys) == 0 {
		return m
	}
	only := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := m[k]; ok {
			only[k] = v
		}
	}
	return only
}

// files is aria2's getFiles list of j: indexes from 1, sizes as strings.
func files(j Job) []map[string]any {
	out := make([]map[string]any, 0, len(j.Files))
	for i, f := range j.Files {
		m := map[string]any{
			"index":           strconv.Itoa(i + 1),
			"path":            f.Path,
			"length":          itoa(f.Length),
			"completedLength": itoa(f.Completed),
			"selected":        strconv.FormatBool(f.Selected),
			"uris":            uris(f),
		}
		if f.VerifiedBy != "" {
			m["braidVerifiedBy"] = f.VerifiedBy
		}
		out = append(out, m)
	}
	return out
}

// uris is aria2's getUris list of a file.
func uris(f File) []map[string]string {
	out := make([]map[string]string, 0, len(f.URIs))
	for _, u := range f.URIs {
		st := "waiting"
		if u.Used {
			st = "used"
		}
		out = append(out, map[string]string{"uri": u.URI, "status": st})
	}
	return out
}

// aria2's error codes (its manual's EXIT STATUS), which clients show and
// sort failures by, for each kind of error Braid tells apart.
var ariaCodes = map[explain.Kind]int{
	explain.Unknown:      1,  // an unknown error
	explain.TimedOut:     2,  // time out
	explain.NotFound:     3,  // resource not found
	explain.Expired:      3,  // a link gone for good is not found either
	explain.Unreachable:  6,  // network problem
	explain.Refused:      6,  //
	explain.Dropped:      6,  //
	explain.DiskFull:     9,  // not enough disk space
	explain.Exists:       13, // the file already existed
	explain.NoPermission: 16, // could not create the file
	explain.DiskError:    17, // file I/O error
	explain.NameNotFound: 19, // name resolution failed
	explain.BadDocument:  20, // could not parse the metalink
	explain.Forbidden:    22, // an HTTP answer aria2 does not expect (403)
	explain.ServerError:  22, //
	explain.LoginNeeded:  24, // HTTP authorization failed
	explain.ProxyLogin:   24, // aria2 says the same of a proxy's
	explain.Busy:         29, // the server is overloaded or in maintenance
	explain.BadData:      32, // checksum validation failed
}

// errorOf is a download's error in aria2's terms: its errorCode ("0"
// when it has none), its errorMessage as a sentence, and Braid's own
// text behind it when the sentence is not that text. A failed or waiting
// download's code is its last error's; a paused one says why Braid
// paused it, with no code, as aria2 gives codes only to errors.
func errorOf(j Job) (code, message, detail string) {
	code = "0"
	if j.Error == "" {
		if j.State == Error {
			code = "1"
		}
		return code, "", ""
	}
	k := explain.OfText(j.Error)
	if j.State == Error || j.State == Waiting {
		code = strconv.Itoa(ariaCodes[k])
	}
	if k == explain.Unknown && explain.RawFragment(j.Error) == "" {
		return code, explain.AsSentence(j.Error), "" // Braid's own words already
	}
	message = explain.AsSentence(k.Clause())
	if k == explain.Unknown {
		message = "The download stopped; braidErrorDetail says why."
	}
	if j.State == Waiting {
		message += " Braid tries again by itself."
	}
	return code, message, j.Error
}
