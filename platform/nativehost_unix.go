//go:build !windows

package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// RegisterNativeHost writes h's manifests for the browsers this user has
// run (their folders exist): on Linux and the BSDs Chrome, Chromium,
// Brave, Edge, Vivaldi and Firefox; on macOS the same under Application
// Support. With h.Args a launcher script is written to Braid's data folder
// first. The notes say which browsers got the host.
func RegisterNativeHost(h NativeHost) (notes []string, err error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	places, data, err := hostPlaces(os.Getenv)
	if err != nil {
		return nil, err
	}
	program := h.Exe
	if len(h.Args) > 0 {
		program = filepath.Join(data, "native-host.sh")
		if err := os.MkdirAll(data, 0o755); err != nil {
			return nil, fmt.Errorf("native messaging host launcher: %w", err)
		}
		if err := writeHostFile(program, []byte(launcher(h.Exe, h.Args)), 0o755); err != nil {
			return nil, fmt.Errorf("native messaging host launcher: %w", err)
		}
	}
	_, notes, err = h.writeManifests(places, program)
	return notes, err
}

// UnregisterNativeHost removes what RegisterNativeHost wrote.
func UnregisterNativeHost(h NativeHost) error {
	places, data, err := hostPlaces(os.Getenv)
	if err != nil {
		return err
	}
	err = h.removeManifests(places)
	if rmErr := os.Remove(filepath.Join(data, "native-host.sh")); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		err = errors.Join(err, rmErr)
	}
	return err
}

// launcher is a POSIX shell script that starts exe with args and the
// browser's arguments.
func launcher(exe string, args []string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# Braid's native messaging host, started by the browser extension.\nexec ")
	b.WriteString(shellQuote(exe))
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString(" \"$@\"\n")
	return b.String()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hostPlaces are where this system's browsers look for a user's host
// manifests, and the folder for Braid's launcher.
func hostPlaces(getenv func(string) string) ([]hostPlace, string, error) {
	home := getenv("HOME")
	if home == "" {
		return nil, "", errors.New("native messaging hosts: HOME is not set")
	}
	if runtime.GOOS == "darwin" {
		support := filepath.Join(home, "Library", "Application Support")
		var ps []hostPlace
		for _, b := range []struct{ name, dir string }{
			{"Google Chrome", "Google/Chrome"},
			{"Chromium", "Chromium"},
			{"Brave", "BraveSoftware/Brave-Browser"},
			{"Microsoft Edge", "Microsoft Edge"},
			{"Vivaldi", "Vivaldi"},
		} {
			dir := filepath.Join(support, filepath.FromSlash(b.dir))
			ps = append(ps, hostPlace{browser: b.name, found: dir, dir: filepath.Join(dir, "NativeMessagingHosts")})
		}
		ps = append(ps, hostPlace{browser: "Firefox", found: filepath.Join(support, "Firefox"),
			dir: filepath.Join(support, "Mozilla", "NativeMessagingHosts"), firefox: true})
		return ps, filepath.Join(support, "Braid"), nil
	}
	config := getenv("XDG_CONFIG_HOME")
	if config == "" {
		config = filepath.Join(home, ".config")
	}
	data := getenv("XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(home, ".local", "share")
	}
	var ps []hostPlace
	for _, b := range []struct{ name, dir string }{
		{"Google Chrome", "google-chrome"},
		{"Chromium", "chromium"},
		{"Brave", "BraveSoftware/Brave-Browser"},
		{"Microsoft Edge", "microsoft-edge"},
		{"Vivaldi", "vivaldi"},
	} {
		dir := filepath.Join(config, filepath.FromSlash(b.dir))
		ps = append(ps, hostPlace{browser: b.name, found: dir, dir: filepath.Join(dir, "NativeMessagingHosts")})
	}
	moz := filepath.Join(home, ".mozilla")
	ps = append(ps, hostPlace{browser: "Firefox", found: moz, dir: filepath.Join(moz, "native-messaging-hosts"), firefox: true})
	return ps, filepath.Join(data, "braid"), nil
}

// removeManifests removes h's manifests from every place; absent ones
// are no error.
func (h NativeHost) removeManifests(places []hostPlace) error {
	var errs []error
	for _, p := range places {
		err := os.Remove(filepath.Join(p.dir, h.Name+".json"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
