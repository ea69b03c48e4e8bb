package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// redialEvery is how soon a lost notification connection is dialled
// again: a restarted daemon is found within it.
const redialEvery = 2 * time.Second

// listen keeps a WebSocket to the daemon and signals Changes on each of
// its notifications (aria2.onDownloadStart, …), and when the connection
// is lost or made again, until ctx ends.
func (b *Backend) listen(ctx context.Context) {
	defer close(b.done)
	ws := wsURL(b.endpoint)
	dialer := websocket.Dialer{HandshakeTimeout: callTimeout, Proxy: http.ProxyFromEnvironment}
	connected := false
	for {
		conn, _, err := dialer.DialContext(ctx, ws, nil)
		if err == nil {
			// Found (again): the queue may be another one now.
			b.changed()
			connected = true
			stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
			b.read(conn)
			stop()
			_ = conn.Close()
		}
		if connected {
			b.changed() // lost: the window says so on its next read
			connected = false
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(redialEvery):
		}
	}
}

// read signals Changes for each notification until the connection ends.
func (b *Backend) read(conn *websocket.Conn) {
	conn.SetReadLimit(1 << 20)
	for {
		_, raw, err := conn.ReadMessage()
		if err != nil {
			return
		}
		var n struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(raw, &n) != nil {
			continue
		}
		if strings.HasPrefix(n.Method, "aria2.onDownload") || strings.HasPrefix(n.Method, "aria2.onBtDownload") {
			b.changed()
		}
	}
}

// wsURL is the WebSocket URL of a JSON-RPC endpoint: ws for http, wss for
// https, the same host and path.
func wsURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	u.Scheme = map[string]string{"https": "wss"}[u.Scheme]
	if u.Scheme == "" {
		u.Scheme = "ws"
	}
	return u.String()
}
