package platform

import (
	"context"
	"errors"
)

// errBundle: macOS learns which files an application opens from its bundle
// (CFBundleDocumentTypes in Info.plist), read by Launch Services when the
// app is first seen, not from anything written at run time.
var errBundle = errors.New("on macOS Braid.app declares the files it opens itself: " +
	"move Braid.app to Applications and open it once; " +
	"then choose it in Finder's Get Info › Open with › Change All")

// Register explains how macOS associates files; there is nothing to write.
func Register(context.Context, string, map[int][]byte) ([]string, error) { return nil, errBundle }

// Unregister explains how macOS associates files; there is nothing to remove.
func Unregister(context.Context, string, map[int][]byte) ([]string, error) { return nil, errBundle }
