package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// The test binary is the command a job runs when done: started with
// argvOutEnv set it writes its arguments, as it received them, to that
// file as JSON, and exits with argvExitEnv's status (saying "boom" on
// stderr when it is not 0). No shell is involved anywhere, so what the
// file holds is exactly what Braid passed.
const (
	argvOutEnv  = "BRAID_TEST_ARGV_OUT"
	argvExitEnv = "BRAID_TEST_ARGV_EXIT"
)

func init() {
	out := os.Getenv(argvOutEnv)
	if out == "" {
		return
	}
	b, _ := json.Marshal(os.Args[1:])
	if err := os.WriteFile(out, b, 0o644); err != nil {
		os.Exit(99)
	}
	if code, _ := strconv.Atoi(os.Getenv(argvExitEnv)); code != 0 {
		fmt.Fprintln(os.Stderr, "boom: the command failed on purpose")
		os.Exit(code)
	}
	os.Exit(0)
}

// quoteWord quotes s as one word for queue.SplitCommand.
func quoteWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestWhenDoneCommand downloads a file with a hostile name (spaces,
// quotes, $(…), backticks, a semicolon, $HOME) from a real mirror into a real
// queue; the command set for when it is done gets the file's path as one
// argument of its own, and nothing of the name ran as a command.
func TestWhenDoneCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	out := filepath.Join(t.TempDir(), "argv.json")
	t.Setenv(argvOutEnv, out)
	// (Double quotes are refused in file names, as Windows refuses them.)
	const name = `it's my 'film' $(touch PWNED) ` + "`touch PWNED2`" + `; touch PWNED3 & $HOME.mkv`
	data := testkit.Data(300 << 10)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: "film.meta4", Dest: dest, Doc: describe(t, name, data, 64<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	command := quoteWord(self) + ` --title "Braid: done" 'two words'`
	if err := q.SetJob(id, queue.DoWhenDone(queue.WhenDone{Action: queue.ActionCommand, Command: command})); err != nil {
		t.Fatal(err)
	}
	r := runner(q)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.WaitActions(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	var argv []string
	if err := json.Unmarshal(b, &argv); err != nil {
		t.Fatal(err)
	}
	want := []string{"--title", "Braid: done", "two words", filepath.Join(dest, name)}
	if !reflect.DeepEqual(argv, want) {
		t.Errorf("the command got %q, want %q", argv, want)
	}
	if got, err := os.ReadFile(filepath.Join(dest, name)); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the file: %d bytes, %v", len(got), err)
	}
	for _, dir := range []string{dest, "."} {
		for _, p := range []string{"PWNED", "PWNED2", "PWNED3"} {
			if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
				t.Errorf("the file name ran as a shell command: %s exists", filepath.Join(dir, p))
			}
		}
	}
	if wj, err := q.Get(id); err != nil || wj.WhenDoneNote != (queue.WhenDoneNote{}) {
		t.Errorf("note after a command that went well: %+v, %v", wj.WhenDoneNote, err)
	}
	// A done job run again does not run its action again.
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitActions(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the action ran again for a job that was done already")
	}
}

// TestWhenDoneFailure: a command that fails, or cannot be found, leaves
// the job done and a note on it that says how; the download is not
// touched.
func TestWhenDoneFailure(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(argvOutEnv, filepath.Join(t.TempDir(), "argv.json"))
	t.Setenv(argvExitEnv, "3")
	data := testkit.Data(100 << 10)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	failing, err := q.Add(queue.NewJob{Source: "a.meta4", Dest: t.TempDir(), Doc: describe(t, "a.bin", data, 0, m)})
	if err != nil {
		t.Fatal(err)
	}
	missing, err := q.Add(queue.NewJob{Source: "b.meta4", Dest: t.TempDir(), Doc: describe(t, "b.bin", data, 0, m)})
	if err != nil {
		t.Fatal(err)
	}
	for id, cmd := range map[int64]string{failing: quoteWord(self), missing: "braid-no-such-program --x"} {
		if err := q.SetJob(id, queue.DoWhenDone(queue.WhenDone{Action: queue.ActionCommand, Command: cmd})); err != nil {
			t.Fatal(err)
		}
	}
	r := runner(q)
	// The face hears of each action's end once its note is recorded.
	var mu sync.Mutex
	ended := map[int64]queue.WhenDoneNote{}
	r.ActionEnded = func(id int64) {
		wj, err := q.Get(id)
		n := wj.WhenDoneNote
		if err != nil {
			t.Errorf("job %d: %v", id, err)
		}
		mu.Lock()
		ended[id] = n
		mu.Unlock()
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.WaitActions(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, id := range []int64{failing, missing} {
		if n, ok := ended[id]; !ok || n.Kind != queue.ActionCommand {
			t.Errorf("job %d: ActionEnded called %v, with the note %+v recorded", id, ok, n)
		}
	}
	mu.Unlock()
	for id, want := range map[int64][]string{failing: {"exit status 3", "boom"}, missing: {"braid-no-such-program", "not found"}} {
		j, err := q.Get(id)
		if err != nil || j.State != queue.Done {
			t.Errorf("job %d: %s, %v", id, j.State, err)
		}
		wj, err := q.Get(id)
		n := wj.WhenDoneNote
		if err != nil || n.Kind != queue.ActionCommand {
			t.Errorf("job %d: note %+v, %v", id, n, err)
		}
		for _, w := range want {
			if !strings.Contains(n.Detail, w) {
				t.Errorf("job %d: note %q does not say %q", id, n.Detail, w)
			}
		}
	}
}

// TestWhenDoneOpen: "open the file" and "show in folder" go through the
// desktop's opener, which is found on PATH: xdg-open on Linux, rundll32
// (url.dll's FileProtocolHandler, the shell's "open") and explorer
// /select on Windows. Here stand-ins on PATH take their place and record
// the arguments they were given: on Linux a shell script, on Windows this
// test binary copied under the two names (argvOutEnv), as Windows runs no
// shell script. What the real programs do with the request is the
// desktop's; what the test checks is that Braid asks for the right file,
// as one argument, even with a space in its name.
func TestWhenDoneOpen(t *testing.T) {
	bin := t.TempDir()
	var asked func() []string // what the opener was asked last, then forgotten
	if runtime.GOOS == "windows" {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"rundll32.exe", "explorer.exe"} {
			if err := os.WriteFile(filepath.Join(bin, name), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(t.TempDir(), "argv.json")
		t.Setenv(argvOutEnv, out)
		asked = func() []string {
			t.Helper()
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("the opener was not run: %v", err)
			}
			os.Remove(out)
			var argv []string
			if err := json.Unmarshal(b, &argv); err != nil {
				t.Fatal(err)
			}
			return argv
		}
	} else {
		if _, err := os.Stat("/bin/sh"); err != nil {
			t.Skip("needs /bin/sh for the stand-in xdg-open")
		}
		log := filepath.Join(t.TempDir(), "opened")
		script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + quoteWord(log) + "\n"
		if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		asked = func() []string {
			t.Helper()
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatalf("the opener was not run: %v", err)
			}
			os.Remove(log)
			return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	data := testkit.Data(50 << 10)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dir := t.TempDir()
	r := runner(q)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(id int64) {
		t.Helper()
		if err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := r.WaitActions(ctx); err != nil {
			t.Fatal(err)
		}
		// An action runs only for a job that is done: one that failed
		// says why here, not as an opener that was never run.
		if j, err := q.Get(id); err != nil || j.State != queue.Done {
			t.Fatalf("job %d after the run: %s, %q (%v)", id, j.State, j.Error, err)
		}
		if wj, err := q.Get(id); err != nil || wj.WhenDoneNote != (queue.WhenDoneNote{}) {
			t.Errorf("job %d's when-done note: %+v, %v", id, wj.WhenDoneNote, err)
		}
	}

	open, err := q.Add(queue.NewJob{Source: "a.meta4", Dest: dir, Doc: describe(t, "a file.pdf", data, 0, m)})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(open, queue.DoWhenDone(queue.WhenDone{Action: queue.ActionOpen})); err != nil {
		t.Fatal(err)
	}
	run(open)
	file := filepath.Join(dir, "a file.pdf")
	want := []string{file}
	if runtime.GOOS == "windows" {
		want = []string{"url.dll,FileProtocolHandler", file}
	}
	if got := asked(); !reflect.DeepEqual(got, want) {
		t.Errorf("open the file: the opener got %q, want %q", got, want)
	}

	show, err := q.Add(queue.NewJob{Source: "b.meta4", Dest: dir, Doc: describe(t, "sub/b.bin", data, 0, m)})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(show, queue.DoWhenDone(queue.WhenDone{Action: queue.ActionShow})); err != nil {
		t.Fatal(err)
	}
	run(show)
	want = []string{filepath.Join(dir, "sub")} // xdg-open selects nothing: the folder
	if runtime.GOOS == "windows" {
		want = []string{"/select," + filepath.Join(dir, "sub", "b.bin")}
	}
	if got := asked(); !reflect.DeepEqual(got, want) {
		t.Errorf("show in folder: the opener got %q, want %q", got, want)
	}
}
