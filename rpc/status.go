package rpc

import (
	"encoding/hex"
	"slices"
	"strconv"
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
	errorCode := "0"
	if j.State == Error {
		errorCode = "1" // aria2's "unknown error": the message says more
	}
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
	if j.Error != "" {
		m["errorMessage"] = j.Error
	}
	if j.Bitfield != nil {
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
		m["bittorrent"] = map[string]any{"mode": mode, "info": map[string]string{"name": j.Name}}
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
