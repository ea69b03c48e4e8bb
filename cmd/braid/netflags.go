package main

import (
	"flag"
	"fmt"
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
	netrcFile            string
	noNetrc              bool
	cookies              string
	headers              headerList
	userAgent, referer   string
	allHosts             bool
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
	fs.StringVar(&n.allProxy, "all-proxy", "", "send every connection through this proxy: http://, https://, socks5:// (names resolved here) or socks5h:// (names resolved by the proxy), with user:password@ if it asks for a login (default: http_proxy, https_proxy, ftp_proxy, all_proxy as curl reads them)")
	fs.StringVar(&n.noProxy, "no-proxy", "", "hosts reached directly, comma separated: names (with their subdomains), IP addresses, CIDR ranges, or * (default: no_proxy)")
	fs.StringVar(&n.httpUser, "http-user", "", "user name for HTTP(S) servers of the given links that ask for a login")
	fs.StringVar(&n.httpPasswd, "http-passwd", "", "its password (other users can see it in the process list: prefer .netrc)")
	fs.StringVar(&n.ftpUser, "ftp-user", "", "user name for FTP servers of the given links (default: anonymous)")
	fs.StringVar(&n.ftpPasswd, "ftp-passwd", "", "its password")
	fs.StringVar(&n.netrcFile, "netrc-file", "", "take logins from FILE (default: ~/.netrc when it exists)")
	fs.BoolVar(&n.noNetrc, "no-netrc", false, "read no .netrc")
	fs.StringVar(&n.cookies, "load-cookies", "", "send cookies from FILE (Netscape cookies.txt, as curl, wget and browser exports write it) where their domain and path allow")
	fs.Var(&n.headers, "header", "send this header ('Name: value') to the hosts of the given links (repeatable)")
	fs.StringVar(&n.userAgent, "user-agent", "", "send TEXT as User-Agent to every server")
	fs.StringVar(&n.referer, "referer", "", "send URL as Referer to every server")
	fs.BoolVar(&n.allHosts, "to-all-hosts", false, "also send --header and the --http/--ftp user and password to mirrors and redirects on other hosts")
	return n
}

// network is the proxy route of the run: --all-proxy, else the
// environment as curl reads it, else (Windows, macOS) the system's
// proxies. Its error never shows a password.
func (n *netFlags) network() (*netconf.Network, error) {
	p := netconf.Proxy{Mode: netconf.ProxySystem, NoProxy: n.noProxy}
	if n.allProxy != "" {
		p.Mode, p.URL = netconf.ProxyManual, n.allProxy
	}
	return netconf.NewNetwork(p)
}

// session is the logins, cookies and headers of the run's sources; links
// are the sources, so that a header or a login given on the command line
// goes to their hosts only (unless --to-all-hosts).
func (n *netFlags) session(links []string) (*netconf.Session, error) {
	var urls []string
	for _, l := range links {
		if strings.Contains(l, "://") {
			urls = append(urls, l)
		}
	}
	return netconf.Settings{
		HTTPUser: n.httpUser, HTTPPasswd: n.httpPasswd,
		FTPUser: n.ftpUser, FTPPasswd: n.ftpPasswd,
		NetrcFile: n.netrcFile, NoNetrc: n.noNetrc,
		CookieFile: n.cookies, Headers: n.headers,
		UserAgent: n.userAgent, Referer: n.referer,
		Links: urls, AllHosts: n.allHosts,
	}.Open()
}
