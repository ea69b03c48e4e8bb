package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// logName is Braid's log in the state folder: what the libraries have to
// say (anacrolix/torrent's peers, trackers and DHT; Fyne's errors) while
// the window or `braid queue run` runs, instead of the terminal.
const logName = "braid.log"

// maxLog is the size at which the log is set aside as braid.log.1 (the
// one before that is dropped) when a window or queue run starts.
const maxLog = 4 << 20

// openLog makes the state folder's log slog's default, so every library
// client made afterwards logs there (engine/torrent takes slog.Default
// when given no Logger). The returned func restores the old default and
// closes the file. When the log cannot be opened, logs are dropped rather
// than printed, and the error says why.
func openLog(stateDir string) (func(), error) {
	old := slog.Default()
	path := filepath.Join(stateDir, logName)
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLog {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	var w io.Writer = f
	if err != nil {
		w = io.Discard
		err = fmt.Errorf("log %s: %w", path, err)
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})))
	return func() {
		slog.SetDefault(old)
		if f != nil {
			f.Close()
		}
	}, err
}
