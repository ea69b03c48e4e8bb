package queue

import (
	"path/filepath"
	"runtime"
	"testing"

	"braid/queue/queuetest"
)

// The state folder and the trusted keys' folder are the system's places
// (Windows: the queue in %LOCALAPPDATA%\Braid, the keys roaming in
// %APPDATA%\Braid; Unix: both in ~/.config/braid), and BRAID_STATE, then
// --state, put both in the folder they name.
func TestDefaultFolders(t *testing.T) {
	home := t.TempDir()
	var wantState, wantKeys string
	if runtime.GOOS == "windows" {
		t.Setenv("LOCALAPPDATA", filepath.Join(home, "Local"))
		t.Setenv("APPDATA", filepath.Join(home, "Roaming"))
		wantState, wantKeys = filepath.Join(home, "Local", "Braid"), filepath.Join(home, "Roaming", "Braid")
	} else {
		t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
		wantState = filepath.Join(home, "config", "braid")
		wantKeys = wantState
	}
	t.Setenv("BRAID_STATE", "")

	dir, err := Dir("")
	if err != nil || dir != wantState {
		t.Fatalf("Dir() = %q, %v; want %q", dir, err, wantState)
	}
	q := queuetest.Open(t, Open, dir)
	if got, want := q.Path(), filepath.Join(wantState, DBName); got != want {
		t.Errorf("the queue is %s, want %s", got, want)
	}
	if got, want := KeysDir(filepath.Dir(q.Path())), wantKeys; got != want {
		t.Errorf("the trusted keys are %s, want %s", got, want)
	}
	q.Close()

	env := filepath.Join(home, "env")
	t.Setenv("BRAID_STATE", env)
	if dir, err := Dir(""); err != nil || dir != env {
		t.Errorf("Dir() with BRAID_STATE = %q, %v; want %q", dir, err, env)
	}
	flag := filepath.Join(home, "flag")
	if dir, err := Dir(flag); err != nil || dir != flag {
		t.Errorf("Dir(--state) with BRAID_STATE = %q, %v; want %q", dir, err, flag)
	}
	q = queuetest.Open(t, Open, flag)
	if got, want := KeysDir(filepath.Dir(q.Path())), flag; got != want {
		t.Errorf("the trusted keys of a --state folder are %s, want %s", got, want)
	}
}
