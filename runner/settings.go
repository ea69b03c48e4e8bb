package runner

import (
	"braid/engine"
	"braid/queue"
)

// applyChanges gives the live client c the limits that differ between
// the settings old and now, so a limit given on the command line over the
// settings stays until the user changes that setting.
func applyChanges(c *engine.Client, old, now queue.Settings) {
	if now.SpeedLimit != old.SpeedLimit {
		c.SetLimit(now.SpeedLimit)
	}
	if now.MaxConns != old.MaxConns {
		c.SetMaxConns(now.MaxConns)
	}
	if now.MaxConnsPerMirror != old.MaxConnsPerMirror {
		c.SetMaxConnsPerMirror(now.MaxConnsPerMirror)
	}
	if now.MaxConnsPerHost != old.MaxConnsPerHost {
		c.SetMaxConnsPerHost(now.MaxConnsPerHost)
	}
}
