package bridge

import (
	"context"
	"net/url"
	"strings"

	"braid/engine/explain"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/transport"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

var (
	_ ui.LoginGiver  = (*Backend)(nil)
	_ ui.LoginOpener = (*Backend)(nil)
	_ ui.Relinker    = (*Backend)(nil)
)

// LoginWanted says whether job id stopped because a server asks for a
// login, or refused the one given, and which server: the host of the
// job's mirror its reason names (else of its first HTTP or FTP mirror).
// A job whose password was kept for an earlier session only asks again
// too. A proxy's request for a login is not the server's: the proxy
// setting carries its login.
func (b *Backend) LoginWanted(id ui.JobID) (ui.LoginRequest, bool) {
	if b.isSync(id) {
		return ui.LoginRequest{}, false
	}
	j, err := b.q.Get(int64(id))
	if err != nil || (j.State != queue.Failed && j.State != queue.Paused) || j.Error == "" {
		return ui.LoginRequest{}, false
	}
	if mendOf(j) != ui.MendLogin {
		return ui.LoginRequest{}, false
	}
	req := ui.LoginRequest{Refused: strings.Contains(j.Error, refusedLoginText), Lost: strings.Contains(j.Error, queue.ErrSecretLost.Error())}
	if u, ok := loginMirror(j); ok {
		req.Host = u.Host
	}
	if req.Host == "" {
		return ui.LoginRequest{}, false
	}
	if s, ok, _, err := b.q.Net(int64(id)); err == nil && ok {
		req.User = s.HTTPUser
	}
	if req.Lost && req.User == "" {
		return ui.LoginRequest{}, false // what was lost is not a login
	}
	return req, true
}

// loginMirror is the mirror of job j that asked for a login: the one its
// reason names, else its first HTTP(S) or FTP mirror.
func loginMirror(j queue.Job) (*url.URL, bool) {
	var first *url.URL
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		for _, m := range f.Mirrors {
			u, err := url.Parse(m.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ftp") {
				continue
			}
			if strings.Contains(j.Error, m.URL) || strings.Contains(j.Error, "//"+u.Host+"/") {
				return u, true
			}
			if first == nil {
				first = u
			}
		}
	}
	return first, first != nil
}

// GiveLogin gives job id the login for the server that asked (the
// job's mirrors on that host only) and resumes it. remember keeps the
// password in the system's keyring (setLogin); otherwise in
// this process's memory, until Braid closes. note is the queue's
// sentence when no keyring took the password after all.
func (b *Backend) GiveLogin(id ui.JobID, user, password string, remember bool) (string, error) {
	j, err := b.q.Get(int64(id))
	if err != nil {
		return "", err
	}
	var links []string
	if u, ok := loginMirror(j); ok {
		for _, f := range j.Files {
			for _, m := range f.Mirrors {
				if mu, err := url.Parse(m.URL); err == nil && strings.EqualFold(mu.Host, u.Host) {
					links = append(links, m.URL)
				}
			}
		}
	}
	note, err := runner.SetLogin(b.q, int64(id), user, password, links, remember)
	if err != nil {
		return "", err
	}
	return note, b.Resume(id)
}

// CanRemember reports whether the system has a keyring for remembered
// passwords.
func (b *Backend) CanRemember() bool { return queue.KeyringAvailable() }

// refusedLoginText is the transport's text of a login given and refused,
// taken from the error itself.
var refusedLoginText = (&transport.LoginError{Refused: true}).Error()

// mendOf is what the user can do for a stopped job: log in, for one a
// server (not the proxy) asks a login of, or whose password was kept for
// an earlier session only; change its link, for one whose link expired.
func mendOf(j queue.Job) ui.Mend {
	if j.State != queue.Failed && j.State != queue.Paused || j.Error == "" {
		return ui.MendNone
	}
	switch {
	case j.LinkExpired():
		return ui.MendLink
	case strings.Contains(j.Error, queue.ErrSecretLost.Error()):
		return ui.MendLogin
	case explain.OfText(j.Error) == explain.LoginNeeded:
		return ui.MendLogin
	}
	return ui.MendNone
}

// OpenWithLogin reads source as Open does (runner.Resolve), with a login
// for its server (one that asked for it: HTTP 401, FTP 530); a link that
// cannot be read is refused, with the reason. The login goes with the
// document to Add: the job gets it as GiveLogin gives it, before it can
// run.
func (b *Backend) OpenWithLogin(ctx context.Context, source, user, password string, remember bool) (*metalink.Document, error) {
	ss, err := netconf.Settings{HTTPUser: user, HTTPPasswd: password, FTPUser: user, FTPPasswd: password, Links: []string{source}}.Open()
	if err != nil {
		return nil, err
	}
	doc, err := b.resolve(ctx, source, b.readOptions().Wearing(ss))
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openLogins == nil || len(b.openLogins) >= maxOrigins {
		// Pickers closed without adding left these: forget them.
		b.openLogins = map[*metalink.Document]runner.Login{}
	}
	b.openLogins[doc] = runner.Login{User: user, Password: password, Remember: remember}
	return doc, nil
}

// takeLogin returns and forgets the login OpenWithLogin read doc with:
// Add gives it to the job's mirrors on the source's server, before the
// job can run.
func (b *Backend) takeLogin(doc *metalink.Document) *runner.Login {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.openLogins[doc]
	if !ok {
		return nil
	}
	delete(b.openLogins, doc)
	return &l
}
