//go:build !headless

package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"braid/queue"
	"braid/ui"
	"braid/ui/remote"
)

// connKeeper is the window's ui.ConnectionKeeper over the queue's saved
// connections (queue/remotes.go): where the downloads run, kept in the
// settings table, secrets in the keyring. Switching shows the chosen
// downloads in the same window (front.switchTo).
//
// In a plain start q is the queue the window runs, open throughout. With
// --remote no queue is held (another Braid may run it): each look at the
// connections opens the queue of dir and closes it again, and given is
// the address given on the command line, listed beside the saved ones
// though not saved, its secret (from the file or the environment) in
// session.
type connKeeper struct {
	dir string // the state folder
	// given is --remote's URL, "" without; session holds secrets given
	// for this run only, by URL.
	given   string
	session map[string]string
	// switchTo shows the downloads at a URL in the window ("" here).
	switchTo func(link string)

	mu    sync.Mutex
	q     *queue.Queue // nil with --remote until this computer is shown
	shown string       // the URL of the downloads the window shows; "" here
	note  string       // said by the Window the next switch makes (a secret kept for this session)
}

// withQueue runs f on the queue: the open one, or the queue of dir
// opened for f alone.
func (k *connKeeper) withQueue(f func(q *queue.Queue) error) error {
	if q := k.queue(); q != nil {
		return f(q)
	}
	q, err := queue.Open(k.dir)
	if err != nil {
		return err
	}
	err = f(q)
	if cerr := q.Close(); err == nil {
		err = cerr
	}
	return err
}

// queue is the queue held open, nil when none is.
func (k *connKeeper) queue() *queue.Queue {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.q
}

// hold keeps q open as the queue (--remote switched to this computer).
func (k *connKeeper) hold(q *queue.Queue) {
	k.mu.Lock()
	k.q = q
	k.mu.Unlock()
}

// setShown records the downloads the window shows now.
func (k *connKeeper) setShown(link string) {
	k.mu.Lock()
	k.shown = link
	k.mu.Unlock()
}

// takeNote is the note for the next Window, once.
func (k *connKeeper) takeNote() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.note
	k.note = ""
	return n
}

// chosen is the URL of the downloads the user chose to run on, "" for
// this computer's (and when the choice cannot be read: said on stderr).
func (k *connKeeper) chosen(stderr io.Writer) string {
	var active string
	err := k.withQueue(func(q *queue.Queue) (err error) {
		s, err := q.Settings()
		active = s.RunOn
		return err
	})
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v; the window opens on this computer's downloads\n", err)
		return ""
	}
	return active
}

// secret is the secret for link: the one given for this run, else the
// keyring's (or one typed this session), else BRAID_REMOTE_SECRET, else
// none.
func (k *connKeeper) secret(link string) string {
	if s, ok := k.session[link]; ok {
		return s
	}
	var s string
	var found bool
	_ = k.withQueue(func(q *queue.Queue) error {
		s, found = q.Secret(queue.ConnectionSecret(link))
		return nil
	})
	if found {
		return s
	}
	return os.Getenv(remoteSecretEnv)
}

// Connections lists the saved connections, which has a secret, the chosen
// one and the one shown; --remote's address comes last when it is not
// saved.
func (k *connKeeper) Connections() (ui.Connections, error) {
	k.mu.Lock()
	shown := k.shown
	k.mu.Unlock()
	c := ui.Connections{Shown: shown}
	err := k.withQueue(func(q *queue.Queue) error {
		s, err := q.Settings()
		if err != nil {
			return err
		}
		c.Active = s.RunOn
		for _, one := range s.Connections {
			_, has := q.Secret(queue.ConnectionSecret(one.URL))
			_, given := k.session[one.URL]
			c.List = append(c.List, ui.Connection{Name: one.Name, URL: one.URL, HasSecret: has || given})
		}
		return nil
	})
	if err != nil {
		return ui.Connections{}, err
	}
	if k.given != "" && !slices.ContainsFunc(c.List, func(one ui.Connection) bool { return one.URL == k.given }) {
		_, has := k.session[k.given]
		c.List = append(c.List, ui.Connection{Name: queue.ConnectionName(k.given), URL: k.given, HasSecret: has})
	}
	return c, nil
}

// SetConnections keeps c's list and choice and the secrets typed.
// --remote's address, not saved, stays unsaved unless a secret was typed
// for it; chosen, it is shown without being kept as the choice.
func (k *connKeeper) SetConnections(c ui.Connections, secrets map[string]string) (string, error) {
	var note string
	err := k.withQueue(func(q *queue.Queue) error {
		s, _ := q.Settings() // unreadable: replaced
		saved, active := s.Connections, s.RunOn
		givenSaved := slices.ContainsFunc(saved, func(one queue.Connection) bool { return one.URL == k.given })
		var list []queue.Connection
		for _, one := range c.List {
			if one.URL == k.given && !givenSaved && secrets[one.URL] == "" {
				continue
			}
			name := one.Name
			if name == "" {
				name = queue.ConnectionName(one.URL)
			}
			_, kept := q.Secret(queue.ConnectionSecret(one.URL))
			had := slices.ContainsFunc(saved, func(s queue.Connection) bool { return s.URL == one.URL && s.Secret })
			list = append(list, queue.Connection{Name: name, URL: one.URL, Secret: secrets[one.URL] != "" || kept || had})
		}
		choice := c.Active
		if !slices.ContainsFunc(list, func(one queue.Connection) bool { return one.URL == choice }) && choice != "" {
			choice = active // --remote's address, shown for this run
		}
		if err := q.UpdateSettings(func(st *queue.Settings) { st.Connections, st.RunOn = list, choice }); err != nil {
			return err
		}
		for link, s := range secrets {
			if n := q.SetSecret(queue.ConnectionSecret(link), s, true); n != "" {
				note = n
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	k.mu.Lock()
	k.note = note
	k.mu.Unlock()
	return note, nil
}

// secretLost reports whether link is a saved connection given a secret
// that is not to be found now: without a keyring it lasted only until
// Braid closed, and the window asks for it again.
func (k *connKeeper) secretLost(link string) bool {
	if _, ok := k.session[link]; ok || os.Getenv(remoteSecretEnv) != "" {
		return false
	}
	lost := false
	_ = k.withQueue(func(q *queue.Queue) error {
		s, err := q.Settings()
		if err != nil {
			return err
		}
		_, kept := q.Secret(queue.ConnectionSecret(link))
		lost = !kept && slices.ContainsFunc(s.Connections, func(c queue.Connection) bool { return c.URL == link && c.Secret })
		return nil
	})
	return lost
}

// keepSecret keeps secret for link, typed when the window asked for it
// again: in the keyring when there is one, else for this session.
func (k *connKeeper) keepSecret(link, secret string) error {
	return k.withQueue(func(q *queue.Queue) error {
		q.SetSecret(queue.ConnectionSecret(link), secret, true)
		return nil
	})
}

// Address is remote.Normalize.
func (k *connKeeper) Address(typed string) (string, error) { return remote.Normalize(typed) }

// SwitchTo shows the downloads at link in the window.
func (k *connKeeper) SwitchTo(link string) {
	if k.switchTo != nil {
		k.switchTo(link)
	}
}
