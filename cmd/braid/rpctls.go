package main

import (
	"crypto/tls"
	"errors"

	"braid/rpc"
)

// rpcTLS reads queue run's --rpc-secure, --rpc-certificate and
// --rpc-private-key (aria2's names): nil for a plain listener. A
// certificate or key without --rpc-secure is refused rather than ignored
// (aria2 ignores them), so that nobody believes the RPC encrypted when it
// is not.
func rpcTLS(secure bool, cert, key string) (*tls.Config, error) {
	switch {
	case !secure && (cert != "" || key != ""):
		return nil, errors.New("--rpc-certificate and --rpc-private-key are used with --rpc-secure: add it to answer over TLS")
	case !secure:
		return nil, nil
	case cert == "" || key == "":
		return nil, errors.New("--rpc-secure needs --rpc-certificate FILE and --rpc-private-key FILE (PEM)")
	}
	return rpc.LoadTLS(cert, key)
}
