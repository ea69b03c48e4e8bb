package rpc

import (
	"context"
	"encoding/json"
	"time"
)

// AriaVersion is the aria2 version whose RPC Braid answers like; clients
// that look at getVersion see it as "version".
const AriaVersion = "1.36.0"

// method is one aria2 method: params are after the token.
type method func(s *Server, ctx context.Context, p params) (any, error)

var methods map[string]method

// methodNames in aria2's order, for system.listMethods.
var methodNames = []string{
	"aria2.addUri", "aria2.addTorrent", "aria2.getPeers", "aria2.addMetalink", "aria2.remove", "aria2.pause",
	"aria2.forcePause", "aria2.pauseAll", "aria2.forcePauseAll", "aria2.unpause", "aria2.unpauseAll",
	"aria2.forceRemove", "aria2.changePosition", "aria2.tellStatus", "aria2.getUris", "aria2.getFiles",
	"aria2.getServers", "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped", "aria2.getOption",
	"aria2.changeUri", "aria2.changeOption", "aria2.getGlobalOption", "aria2.changeGlobalOption",
	"aria2.purgeDownloadResult", "aria2.removeDownloadResult", "aria2.getVersion", "aria2.getSessionInfo",
	"aria2.shutdown", "aria2.forceShutdown", "aria2.getGlobalStat", "aria2.saveSession",
	"system.multicall", "system.listMethods", "system.listNotifications",
}

// notificationNames are the notifications the WebSocket carries.
var notificationNames = []string{
	"aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop",
	"aria2.onDownloadComplete", "aria2.onDownloadError", "aria2.onBtDownloadComplete",
}

func init() {
	methods = map[string]method{
		"aria2.addUri":               (*Server).addURI,
		"aria2.addTorrent":           (*Server).addTorrent,
		"aria2.addMetalink":          (*Server).addMetalink,
		"aria2.remove":               (*Server).remove,
		"aria2.forceRemove":          (*Server).remove,
		"aria2.pause":                (*Server).pause,
		"aria2.forcePause":           (*Server).pause,
		"aria2.pauseAll":             (*Server).pauseAll,
		"aria2.forcePauseAll":        (*Server).pauseAll,
		"aria2.unpause":              (*Server).unpause,
		"aria2.unpauseAll":           (*Server).unpauseAll,
		"aria2.tellStatus":           (*Server).tellStatus,
		"aria2.getUris":              (*Server).getURIs,
		"aria2.getFiles":             (*Server).getFiles,
		"aria2.getServers":           (*Server).getServers,
		"aria2.getPeers":             (*Server).getPeers,
		"aria2.tellActive":           (*Server).tellActive,
		"aria2.tellWaiting":          (*Server).tellWaiting,
		"aria2.tellStopped":          (*Server).tellStopped,
		"aria2.changePosition":       (*Server).changePosition,
		"aria2.changeUri":            (*Server).changeURI,
		"aria2.getOption":            (*Server).getOption,
		"aria2.changeOption":         (*Server).changeOption,
		"aria2.getGlobalOption":      (*Server).getGlobalOption,
		"aria2.changeGlobalOption":   (*Server).changeGlobalOption,
		"aria2.getGlobalStat":        (*Server).getGlobalStat,
		"aria2.purgeDownloadResult":  (*Server).purgeDownloadResult,
		"aria2.removeDownloadResult": (*Server).removeDownloadResult,
		"aria2.getVersion":           (*Server).getVersion,
		"aria2.getSessionInfo":       (*Server).getSessionInfo,
		"aria2.saveSession":          func(*Server, context.Context, params) (any, error) { return "OK", nil },
		"aria2.shutdown":             (*Server).shutdown,
		"aria2.forceShutdown":        (*Server).forceShutdown,
	}
}

// errTokenless answers the calls that need no token past maxTokenless in
// one request.
var errTokenless = failf("Only %d calls without a token are answered in one request.", maxTokenless)

// call runs one method; inMulti forbids a nested system.multicall. The
// request's budget, if ctx has one, bounds the calls that need no token.
func (s *Server) call(ctx context.Context, name string, raw []json.RawMessage, inMulti bool) (any, error) {
	switch name {
	case "system.listMethods", "system.listNotifications":
		if b := budgetOf(ctx); b != nil {
			if b.tokenless <= 0 {
				return nil, errTokenless
			}
			b.tokenless--
		}
		if name == "system.listMethods" {
			return methodNames, nil
		}
		return notificationNames, nil
	case "system.multicall":
		if inMulti {
			return nil, failf("Recursive system.multicall forbidden.")
		}
		return s.multicall(ctx, raw)
	}
	m, ok := methods[name]
	if !ok {
		return nil, failf("No such method: %s", name)
	}
	raw, err := s.authorize(raw)
	if err != nil {
		return nil, err
	}
	if !reads[name] {
		// Told once the call is done: a list read meanwhile is kept
		// under the count before it, so it is read again, and the
		// notifications see what the call did.
		defer s.Changed()
	}
	return m(s, ctx, params(raw))
}

// reads are the methods that change nothing: the lists they read are
// kept (Server.read).
var reads = map[string]bool{
	"aria2.tellStatus": true, "aria2.getUris": true, "aria2.getFiles": true, "aria2.getServers": true,
	"aria2.getPeers": true, "aria2.tellActive": true, "aria2.tellWaiting": true, "aria2.tellStopped": true,
	"aria2.getOption": true, "aria2.getGlobalOption": true, "aria2.getGlobalStat": true,
	"aria2.getVersion": true, "aria2.getSessionInfo": true, "aria2.saveSession": true,
}

// multicall runs system.multicall: each call carries its own token; a
// result is wrapped in a one-element array, a failure is its error
// object. Its calls count in the request's budget, and each result is
// charged to the answer cap as it is made (one that does not fit is
// replaced by an error).
func (s *Server) multicall(ctx context.Context, raw []json.RawMessage) (any, error) {
	var calls []struct {
		MethodName string            `json:"methodName"`
		Params     []json.RawMessage `json:"params"`
	}
	if len(raw) != 1 || json.Unmarshal(raw[0], &calls) != nil {
		return nil, failf("The parameter of system.multicall must be an array of structs.")
	}
	b := budgetOf(ctx)
	if b != nil {
		if len(calls) > b.calls {
			return nil, tooManyCalls(s.maxCalls-b.calls+len(calls), s.maxCalls)
		}
		b.calls -= len(calls)
	}
	out := make([]any, 0, len(calls))
	for _, c := range calls {
		var item any
		if c.MethodName == "" {
			item = errorObject{codeFailed, "Missing methodName."}
		} else if res, err := s.call(ctx, c.MethodName, c.Params, true); err != nil {
			item = errorObject{codeFailed, errorText(err)}
		} else {
			item = []any{res}
		}
		if b == nil {
			out = append(out, item)
			continue
		}
		enc := json.RawMessage(marshal(item))
		if _, failed := item.(errorObject); !failed && len(enc)+1 > b.bytes {
			enc = marshal(*answerTooBig(s.maxAnswer))
		}
		b.bytes -= len(enc) + 1 // and a comma
		out = append(out, enc)
	}
	return out, nil
}

func (s *Server) getVersion(context.Context, params) (any, error) {
	return map[string]any{
		"version":         AriaVersion,
		"enabledFeatures": []string{"BitTorrent", "HTTPS", "Message Digest", "Metalink"},
		"braidVersion":    s.o.Version,
	}, nil
}

func (s *Server) getSessionInfo(context.Context, params) (any, error) {
	return map[string]string{"sessionId": s.session}, nil
}

func (s *Server) shutdown(context.Context, params) (any, error) { return s.stop(false) }

func (s *Server) forceShutdown(context.Context, params) (any, error) { return s.stop(true) }

// stop calls Options.Shutdown once, shortly after the answer is sent.
func (s *Server) stop(force bool) (any, error) {
	if s.o.Shutdown == nil {
		return nil, failf("shutdown: %v: quit Braid's window instead", ErrUnsupported)
	}
	s.mu.Lock()
	first := !s.shut
	s.shut = true
	s.mu.Unlock()
	if first {
		time.AfterFunc(100*time.Millisecond, func() { s.o.Shutdown(force) })
	}
	return "OK", nil
}
