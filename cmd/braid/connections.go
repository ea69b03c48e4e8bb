//go:build !headless

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"fyne.io/fyne/v2"

	"braid/queue"
	"braid/ui"
	"braid/ui/remote"
)

// connKeeper is the window's ui.ConnectionKeeper over the queue's saved
// connections (queue/remotes.go): where the downloads run, kept in the
// settings table, secrets in the keyring. Switching closes the window
// and starts Braid again on the chosen downloads (reopen): the local
// engine and a remote backend are different windows' worth of parts, and
// a fresh start gives each its own.
type connKeeper struct {
	q     *queue.Queue
	state string // the state folder the window was started with
	shown string // the URL of the downloads this window drives; "" here
	quit  func() // closes the window; on the UI goroutine

	mu   sync.Mutex
	next *string // the downloads to open again on, once SwitchTo asked
	note string  // said by the next window (a secret kept for this session)
}

// chosen is the URL of the downloads the user chose to run on, "" for
// this computer's (and when the choice cannot be read: said on stderr).
func (k *connKeeper) chosen(stderr io.Writer) string {
	_, active, err := k.q.Connections()
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v; the window opens on this computer's downloads\n", err)
		return ""
	}
	return active
}

// secret is the secret for link: the keyring's, else BRAID_REMOTE_SECRET
// (which a window opened again by reopen gets from the one before when
// there is no keyring), else none.
func (k *connKeeper) secret(link string) string {
	if s, ok := k.q.ConnectionSecret(link); ok {
		return s
	}
	return os.Getenv(remoteSecretEnv)
}

// Connections lists the saved connections, which has a secret, the chosen
// one and the one shown.
func (k *connKeeper) Connections() (ui.Connections, error) {
	list, active, err := k.q.Connections()
	if err != nil {
		return ui.Connections{}, err
	}
	c := ui.Connections{Active: active, Shown: k.shown}
	for _, one := range list {
		_, has := k.q.ConnectionSecret(one.URL)
		c.List = append(c.List, ui.Connection{Name: one.Name, URL: one.URL, HasSecret: has})
	}
	return c, nil
}

// SetConnections keeps c's list and choice and the secrets typed.
func (k *connKeeper) SetConnections(c ui.Connections, secrets map[string]string) (string, error) {
	var list []queue.Connection
	for _, one := range c.List {
		name := one.Name
		if name == "" {
			name = queue.ConnectionName(one.URL)
		}
		list = append(list, queue.Connection{Name: name, URL: one.URL})
	}
	if err := k.q.SetConnections(list, c.Active); err != nil {
		return "", err
	}
	var note string
	for link, s := range secrets {
		n, err := k.q.SetConnectionSecret(link, s)
		if err != nil {
			return "", err
		}
		if n != "" {
			note = n
		}
	}
	k.mu.Lock()
	k.note = note
	k.mu.Unlock()
	return note, nil
}

// Address is remote.Normalize.
func (k *connKeeper) Address(typed string) (string, error) { return remote.Normalize(typed) }

// SwitchTo closes the window; reopen then starts Braid on link's
// downloads.
func (k *connKeeper) SwitchTo(link string) {
	k.mu.Lock()
	k.next = &link
	k.mu.Unlock()
	if k.quit != nil {
		k.quit()
	}
}

// reopen starts Braid again on the chosen downloads when SwitchTo asked,
// once this window has let go of the queue and of the hand-over socket.
// Without a keyring the secret typed goes to the new window in its
// environment (BRAID_REMOTE_SECRET), which other users cannot read.
func (k *connKeeper) reopen(stderr io.Writer) {
	k.mu.Lock()
	next, note := k.next, k.note
	k.mu.Unlock()
	if next == nil {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "braid: Braid could not open again on the chosen downloads (%v): start it again yourself.\n", err)
		return
	}
	cmd := exec.Command(exe, "--state", k.state)
	// The new window gets the secret kept for the downloads it opens on,
	// and no other: one given for these must not go to those.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, remoteSecretEnv+"=") })
	if *next != "" && k.q != nil {
		if s, ok := k.q.ConnectionSecret(*next); ok {
			cmd.Env = append(cmd.Env, remoteSecretEnv+"="+s)
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "braid: Braid could not open again on the chosen downloads (%v): start it again yourself.\n", err)
		return
	}
	where := "this computer's downloads"
	if *next != "" {
		where = "the downloads at " + *next
	}
	fmt.Fprintf(stderr, "braid: opening again on %s (process %d)\n", where, cmd.Process.Pid)
	if note != "" {
		fmt.Fprintf(stderr, "braid: %s\n", note)
	}
	_ = cmd.Process.Release()
}

// quitter is w.Quit, for SwitchTo, which the settings dialog calls on the
// UI goroutine.
func quitter(w *ui.Window) func() { return func() { fyne.Do(w.Quit) } }
