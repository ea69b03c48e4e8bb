package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"

	"braid/engine/netconf"
)

// netFlags are the network flags of get: a proxy for every connection,
// and the logins, cookies and headers of the run's sources. The names are
// aria2's and curl's, so users' habits carry over.
type netFlags struct {
	allProxy, noProxy    string
	httpUser, httpPasswd string
	ftpUser, ftpPasswd   string
	// The passwords' files; with the environment they keep passwords out
	// of the process list.
	proxyPasswdFile, httpPasswdFile, ftpPasswdFile string
	getenv                                         func(string) string // nil: os.Getenv; tests set it
	netrcFile                                      string
	noNetrc                                        bool
	cookies                                        string
	headers                                        headerList
	userAgent, referer                             string
	allHosts                                       bool
}

// headerList is a repeatable --header.
type headerList []string

func (h *headerList) String() string { return fmt.Sprint(len(*h), " headers") }

func (h *headerList) Set(v string) error {
	if _, _, err := netconf.ParseHeader(v); err != nil {
		return err
	}
	*h = append(*h, v)
	return nil
}

// addNetFlags adds the network flags to fs.
func addNetFlags(fs *flag.FlagSet) *netFlags {
	n := &netFlags{}
	n.addProxyFlags(fs, "")
	fs.StringVar(&n.httpUser, "http-user", "", "user name for HTTP(S) servers of the given links that ask for a login")
	fs.StringVar(&n.httpPasswd, "http-passwd", "", "its password (default: $BRAID_HTTP_PASSWD); given here it shows in the process list to other users: prefer --http-passwd-file, the variable or .netrc")
	fs.StringVar(&n.httpPasswdFile, "http-passwd-file", "", "read the --http-user's password from the first line of `FILE`")
	fs.StringVar(&n.ftpUser, "ftp-user", "", "user name for FTP servers of the given links (default: anonymous)")
	fs.StringVar(&n.ftpPasswd, "ftp-passwd", "", "its password (default: $BRAID_FTP_PASSWD); given here it shows in the process list to other users: prefer --ftp-passwd-file, the variable or .netrc")
	fs.StringVar(&n.ftpPasswdFile, "ftp-passwd-file", "", "read the --ftp-user's password from the first line of `FILE`")
	fs.StringVar(&n.netrcFile, "netrc-file", "", "take logins from FILE (default: ~/.netrc when it exists)")
	fs.BoolVar(&n.noNetrc, "no-netrc", false, "read no .netrc")
	fs.StringVar(&n.cookies, "load-cookies", "", "send cookies from FILE (Netscape cookies.txt, as curl, wget and browser exports write it) where their domain and path allow")
	fs.Var(&n.headers, "header", "send this header ('Name: value') to the hosts of the given links (repeatable)")
	fs.StringVar(&n.userAgent, "user-agent", "", "send TEXT as User-Agent to every server")
	fs.StringVar(&n.referer, "referer", "", "send URL as Referer to every server")
	fs.BoolVar(&n.allHosts, "to-all-hosts", false, "also send --header and the --http/--ftp user and password to mirrors and redirects on other hosts")
	return n
}

// addProxyFlags adds the proxy flags alone to fs, each usage after
// prefix: what braid queue run takes, its jobs keeping their own logins.
func (n *netFlags) addProxyFlags(fs *flag.FlagSet, prefix string) {
	fs.StringVar(&n.allProxy, "all-proxy", "", prefix+"send every connection through this proxy: http://, https://, socks5:// (names resolved here) or socks5h:// (names resolved by the proxy), with user@ or user:password@ if it asks for a login; a password here shows in the process list to other users: give it with --all-proxy-passwd-file or $BRAID_ALL_PROXY_PASSWD, or the whole URL in all_proxy (default: http_proxy, https_proxy, ftp_proxy, all_proxy as curl reads them)")
	fs.StringVar(&n.proxyPasswdFile, "all-proxy-passwd-file", "", prefix+"read the password of the --all-proxy URL's user (http://user@host:port) from the first line of `FILE` (default: $BRAID_ALL_PROXY_PASSWD)")
	fs.StringVar(&n.noProxy, "no-proxy", "", prefix+"hosts reached directly, comma separated: names (with their subdomains), IP addresses, CIDR ranges, or * (default: no_proxy)")
}

// open is the run's proxy route (network) and the session of links
// (session): what every command that fetches reaches its servers with. Its
// error is a usage error, naming the flag.
func (n *netFlags) open(links []string) (*netconf.Network, *netconf.Session, error) {
	network, err := n.network()
	if err != nil {
		return nil, nil, err
	}
	session, err := n.session(links)
	if err != nil {
		return nil, nil, err
	}
	return network, session, nil
}

// network is the proxy route of the run: --all-proxy (its password from
// --all-proxy-passwd-file or $BRAID_ALL_PROXY_PASSWD when the URL has a
// user and no password), else the environment as curl reads it, else
// (Windows, macOS) the system's proxies. Its error, a usage error, names
// the flag and never shows a password.
func (n *netFlags) network() (*netconf.Network, error) {
	p := netconf.Proxy{Mode: netconf.ProxySystem, NoProxy: n.noProxy}
	if n.allProxy != "" {
		u, err := n.proxyURL()
		if err != nil {
			return nil, fmt.Errorf("--all-proxy: %w", err)
		}
		p.Mode, p.URL = netconf.ProxyManual, u
	}
	nw, err := netconf.NewNetwork(p)
	if err != nil {
		return nil, fmt.Errorf("--all-proxy: %w", err)
	}
	return nw, nil
}

// proxyURL is --all-proxy with the password from its file or the
// environment put in. A password file for a URL without a user, or with a
// password of its own, is an error; the environment's password is only
// taken where it fits.
func (n *netFlags) proxyURL() (string, error) {
	pass, err := secret{fileFlag: "--all-proxy-passwd-file", file: n.proxyPasswdFile, env: "BRAID_ALL_PROXY_PASSWD"}.get(n.getenv)
	if err != nil || pass == "" {
		return n.allProxy, err
	}
	raw := n.allProxy
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw // netconf's default scheme
	}
	u, perr := url.Parse(raw)
	var user string
	hasPass := false
	if perr == nil && u.User != nil {
		user = u.User.Username()
		_, hasPass = u.User.Password()
	}
	switch {
	case n.proxyPasswdFile == "" && (user == "" || hasPass):
		return n.allProxy, nil // the environment's password is not for this URL
	case perr != nil:
		return n.allProxy, nil // netconf says what is wrong with it, hiding passwords
	case user == "":
		return "", errors.New("--all-proxy-passwd-file: give the proxy's user in --all-proxy, as http://user@host:port")
	case hasPass:
		return "", errors.New("--all-proxy already holds a password: give it there or in --all-proxy-passwd-file, not both")
	}
	u.User = url.UserPassword(user, pass)
	return u.String(), nil
}

// session is the logins, cookies and headers of the run's sources; links
// are the sources, so that a header or a login given on the command line
// goes to their hosts only (unless --to-all-hosts).
func (n *netFlags) session(links []string) (*netconf.Session, error) {
	// A password in the environment is for the user given on the command
	// line: without one it is not sent anywhere.
	envFor := func(user, name string) string {
		if user == "" {
			return ""
		}
		return name
	}
	httpPasswd, err := secret{"--http-passwd", n.httpPasswd, "--http-passwd-file", n.httpPasswdFile, envFor(n.httpUser, "BRAID_HTTP_PASSWD")}.get(n.getenv)
	if err != nil {
		return nil, err
	}
	ftpPasswd, err := secret{"--ftp-passwd", n.ftpPasswd, "--ftp-passwd-file", n.ftpPasswdFile, envFor(n.ftpUser, "BRAID_FTP_PASSWD")}.get(n.getenv)
	if err != nil {
		return nil, err
	}
	var urls []string
	for _, l := range links {
		if strings.Contains(l, "://") {
			urls = append(urls, l)
		}
	}
	return netconf.Settings{
		HTTPUser: n.httpUser, HTTPPasswd: httpPasswd,
		FTPUser: n.ftpUser, FTPPasswd: ftpPasswd,
		NetrcFile: n.netrcFile, NoNetrc: n.noNetrc,
		CookieFile: n.cookies, Headers: n.headers,
		UserAgent: n.userAgent, Referer: n.referer,
		Links: urls, AllHosts: n.allHosts,
	}.Open()
}
