#!/usr/bin/env bash
# Installs what building and testing Braid needs and is missing: a C
# toolchain for cgo (SQLite, Fyne), the X11 and GL headers Fyne builds
# against, and Xvfb for the window tests. It only installs on Debian-like
# machines (apt-get); elsewhere it names what to install and stops.
#
#   tools/setup.sh          the build and test needs (aria2c, the reference the
#                           benchmarks compare against, and nginx, the mirror of
#                           bench/repair.sh, among them)
#   tools/setup.sh bench    also opentracker, the
#                           tracker of braidbench's torrent scenario, and
#                           transmission-daemon, the seeder of engine/torrent's
#                           TestFromTransmission (skipped without it; its Debian
#                           package also starts a system service, hence not by default)
set -euo pipefail

# dpkg-dev: packaging/deb builds the .deb (dpkg-shlibdeps finds its Depends).
# gcc-mingw-w64-x86-64 and wine64: make test cross-compiles cmd/braid and the
# test binaries for Windows and runs those under Wine (tools/wintest.sh);
# nsis: packaging/windows builds the Windows installer (make installer).
# zenity: the system file dialog the window uses where a path can be typed.
# The real servers and clients the tests drive: nginx-light (logins,
# cookies, headers), lighttpd (Digest logins), vsftpd (an FTP server that
# listens for data on its own address only), tinyproxy and microsocks
# (proxies), aria2 (the reference for the JSON-RPC), nodejs and npm (the
# aria2 client library that drives the RPC in its tests), python3-websocket
# (python's websocket-client, aria2p's, for the RPC's notifications), dbus-daemon and
# gnome-keyring (a real Secret Service for the queue's keyring tests),
# unzip (what a member fetched out of a remote ZIP is compared with), par2
# (par2cmdline: what Braid's PAR2 parity is checked against, both ways) and
# ffmpeg (ffprobe reads a media file that is still arriving in order).
want=(gcc libc6-dev pkg-config xorg-dev libgl1-mesa-dev libgl1-mesa-dri xvfb xdotool x11-apps zenity xdg-utils desktop-file-utils shared-mime-info gcc-mingw-w64-x86-64 wine64 nsis
	dpkg-dev nginx-light lighttpd vsftpd tinyproxy microsocks aria2 nodejs python3-websocket dbus-daemon gnome-keyring unzip par2 ffmpeg
	chromium chromium-driver python3-selenium firefox-esr zip) # the browser extension's tests (nativehost)
command -v npm >/dev/null 2>&1 || want+=(npm) # Debian's nodejs comes without it; NodeSource's has it
[ "${1:-}" = bench ] && want+=(opentracker transmission-daemon)

if ! command -v go >/dev/null 2>&1; then
	echo "setup: Go is not installed. Install Go 1.24 or newer from https://go.dev/dl/ and run make again." >&2
	exit 1
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	for h in /usr/include/X11/Xlib.h /usr/include/GL/gl.h; do
		if [ ! -e "$h" ]; then
			echo "setup: $h is missing and this is not a Debian-like system." >&2
			echo "setup: install a C compiler, pkg-config, the X11 development headers, the OpenGL headers and Xvfb with your package manager." >&2
			exit 1
		fi
	done
	exit 0
fi

missing=()
for p in "${want[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo=(sudo)
else
	echo "setup: these packages are missing: ${missing[*]}" >&2
	echo "setup: install them with:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
