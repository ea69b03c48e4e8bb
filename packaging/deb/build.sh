#!/usr/bin/env bash
# Builds Braid's Debian package for this machine with dpkg-deb:
#
#   packaging/deb/build.sh VERSION OUTDIR
#
# It writes OUTDIR/braid_VERSION_ARCH.deb (ARCH is dpkg's, e.g. amd64) and
# prints its path. VERSION is a Debian version (0.1.0, 0.2.0~rc1); braid
# --version reports it.
#
# What the package installs:
#   /usr/lib/braid/braid         the command line, built headless as the
#                                Makefile's bin/braid is
#   /usr/lib/braid/braid-window  the window, which braid finds beside itself
#   /usr/bin/braid               a symbolic link to /usr/lib/braid/braid
#                                (braid resolves it to find braid-window)
#   /usr/lib/braid/native-host.sh  starts `braid native-host` for the browsers
#   /usr/share/applications, /usr/share/icons/hicolor, /usr/share/mime/packages
#                                the desktop entry (files and magnet: links),
#                                the icons and the Metalink MIME types
#   /etc/opt/chrome, /etc/chromium, /etc/opt/edge (native-messaging-hosts) and
#   /usr/lib/mozilla/native-messaging-hosts
#                                the browser extension's native messaging host
#   /usr/share/doc/braid/copyright  Apache-2.0
#
# The desktop entry, MIME definitions, icons, host manifests and launcher are
# the ones `braid install` writes for one user: the freshly built braid writes
# them into a scratch HOME, and only the paths in them are changed to the
# installed ones, so the package and `braid install` cannot drift apart.
# Debian's desktop-file-utils, shared-mime-info and hicolor-icon-theme pick
# the files up through their dpkg triggers: the package has no maintainer
# scripts.
#
# Needs Go, what `make setup` installs (a C compiler, the X11 and GL headers),
# dpkg-deb and dpkg-shlibdeps (Debian's dpkg-dev), which finds the libraries
# the binaries need for the Depends line.
#
# DEB_COMPRESSION (default xz, as Debian's archive) is dpkg-deb's -Z: xz takes
# a minute of CPU for the 65 MB of binaries, zstd a second (the package test
# uses it). DEBFULLNAME and DEBEMAIL, as for Debian's tools, name the
# Maintainer.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case ${1:-} in -h | --help) usage; exit 0 ;; esac
if [ $# -ne 2 ]; then
	echo "usage: packaging/deb/build.sh VERSION OUTDIR (--help says more)" >&2
	exit 2
fi
version=$1
out=$2
# Debian policy 5.6.12: an upstream version starts with a digit and holds
# only alphanumerics and . + - ~ (no epoch here; a hyphen needs a revision).
if ! [[ $version =~ ^[0-9][A-Za-z0-9.+~]*(-[A-Za-z0-9.+~]+)?$ ]]; then
	echo "build.sh: \"$version\" is not a Debian version: it starts with a digit and has only letters, digits and . + ~ (e.g. 0.1.0 or 0.2.0~rc1)" >&2
	exit 2
fi
compression=${DEB_COMPRESSION:-xz}
case $compression in
xz | zstd | gzip | none) ;;
*) echo "build.sh: DEB_COMPRESSION is \"$compression\"; dpkg-deb takes xz, zstd, gzip or none" >&2; exit 2 ;;
esac
for tool in go dpkg-deb dpkg-shlibdeps dpkg; do
	if ! command -v "$tool" >/dev/null; then
		echo "build.sh: $tool is needed and not installed (Go from go.dev; dpkg-deb and dpkg-shlibdeps are in Debian's dpkg-dev)" >&2
		exit 1
	fi
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
arch=$(dpkg --print-architecture)
name=io.github.braid_dm.braid # platform.AppID and nativehost.Name

work=$(mktemp -d "${TMPDIR:-/tmp}/braid-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
pkg=$work/debian/braid # dpkg-shlibdeps looks for debian/PACKAGE under its folder
lib=$pkg/usr/lib/braid

# The binaries, as the Makefile's build target makes them, for this
# machine, stripped of their symbol tables (Go's stack traces need neither),
# and with the package's version.
export GOFLAGS=-tags=nosqlite,disable_libutp CGO_ENABLED=1
unset GOOS GOARCH
ldflags="-s -w -X main.version=$version"
mkdir -p "$lib" "$pkg/usr/bin"
(cd "$root" && go build -tags=nosqlite,disable_libutp,headless -ldflags "$ldflags" -o "$lib/braid" ./cmd/braid)
(cd "$root" && go build -ldflags "$ldflags" -o "$lib/braid-window" ./cmd/braid)
ln -s ../lib/braid/braid "$pkg/usr/bin/braid"

# What `braid install` writes for a user whose Chromium and Firefox exist,
# with no desktop tool on PATH (so it writes no caches and no mimeapps.list).
home=$work/home
mkdir -p "$home/.config/chromium" "$home/.mozilla" "$work/nopath"
HOME=$home XDG_DATA_HOME=$home/share XDG_CONFIG_HOME=$home/.config PATH=$work/nopath \
	"$lib/braid" install >"$work/install.log" 2>&1 || {
	cat "$work/install.log" >&2
	echo "build.sh: braid install into a scratch folder failed" >&2
	exit 1
}
exe=$(cd "$lib" && pwd -P)/braid # as braid install names itself: links resolved
launcher=$home/share/braid/native-host.sh
for f in "$home/share/applications/$name.desktop" "$home/share/mime/packages/$name.xml" "$launcher" \
	"$home/.config/chromium/NativeMessagingHosts/$name.json" "$home/.mozilla/native-messaging-hosts/$name.json"; do
	if [ ! -f "$f" ]; then
		echo "build.sh: braid install did not write ${f#"$home/"}; update packaging/deb/build.sh to what it writes now" >&2
		exit 1
	fi
	# The scratch paths are plain (no quotes or backslashes), so they read
	# the same in the desktop entry, the shell script and the JSON.
	if grep -v -F -e "$exe" -e "$launcher" "$f" | grep -q -F "$work"; then
		echo "build.sh: ${f#"$home/"} names a scratch path other than braid's or the launcher's" >&2
		exit 1
	fi
done
installed() { sed -e "s#$launcher#/usr/lib/braid/native-host.sh#g" -e "s#$exe#/usr/bin/braid#g" "$1"; }

share=$pkg/usr/share
mkdir -p "$share/applications" "$share/mime/packages"
installed "$home/share/applications/$name.desktop" >"$share/applications/$name.desktop"
cp "$home/share/mime/packages/$name.xml" "$share/mime/packages/"
cp -r "$home/share/icons" "$share/"
installed "$launcher" >"$lib/native-host.sh"
for dir in etc/opt/chrome/native-messaging-hosts etc/chromium/native-messaging-hosts etc/opt/edge/native-messaging-hosts; do
	mkdir -p "$pkg/$dir"
	installed "$home/.config/chromium/NativeMessagingHosts/$name.json" >"$pkg/$dir/$name.json"
done
mkdir -p "$pkg/usr/lib/mozilla/native-messaging-hosts"
installed "$home/.mozilla/native-messaging-hosts/$name.json" >"$pkg/usr/lib/mozilla/native-messaging-hosts/$name.json"

mkdir -p "$share/doc/braid"
cat >"$share/doc/braid/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Braid
Source: https://github.com/braid-dm/braid
Comment: The binaries are statically linked with the Go modules that
 Braid's go.mod lists, each under its own licence.

Files: *
Copyright: The Braid authors
License: Apache-2.0

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License");
 you may not use this file except in compliance with the License.
 You may obtain a copy of the License at
 .
 https://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software
 distributed under the License is distributed on an "AS IS" BASIS,
 WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 See the License for the specific language governing permissions and
 limitations under the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0
 can be found in "/usr/share/common-licenses/Apache-2.0".
EOF

# Modes as Debian ships them, whatever the umask was.
find "$pkg" -type d -exec chmod 0755 {} +
find "$pkg" -type f -exec chmod 0644 {} +
chmod 0755 "$lib/braid" "$lib/braid-window" "$lib/native-host.sh"

mkdir -p "$pkg/DEBIAN" # also how dpkg-shlibdeps finds the package's root
# The libraries the binaries link (libc, and libGL and libX11 for the
# window), as dpkg-shlibdeps names their packages.
printf 'Source: braid\n\nPackage: braid\nArchitecture: any\n' >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O "${lib#"$work/"}/braid" "${lib#"$work/"}/braid-window" | sed -n 's/^shlibs:Depends=//p')
if [ -z "$depends" ]; then
	echo "build.sh: dpkg-shlibdeps found no libraries for the binaries" >&2
	exit 1
fi

# Files under /etc are conffiles: an administrator's edit survives an
# upgrade, and dpkg --purge removes them.
(cd "$pkg" && find etc -type f | sed 's#^#/#' | sort) >"$pkg/DEBIAN/conffiles"
maintainer="${DEBFULLNAME:-Braid developers} <${DEBEMAIL:-https://github.com/braid-dm/braid/issues}>"
size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
cat >"$pkg/DEBIAN/control" <<EOF
Package: braid
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: zenity
Section: net
Priority: optional
Homepage: https://github.com/braid-dm/braid
Description: download manager for many mirrors at once, verified piece by piece
 Braid downloads a file from several HTTP, FTP and BitTorrent sources at
 once, checks every piece against the hashes of its Metalink (.meta4,
 .metalink) or torrent, and repairs a damaged file by fetching only its bad
 pieces again. A queue remembers what is safely on disk across pauses,
 crashes and power cuts.
 .
 The package holds the window (braid) and the command line (braid get,
 verify, repair, make, queue...), opens .meta4, .metalink and .torrent
 files and magnet: links from the desktop, and registers the native
 messaging host of Braid's browser extension with Chrome, Chromium, Edge
 and Firefox.
EOF

deb=$out/braid_${version}_$arch.deb
dpkg-deb --root-owner-group -Z"$compression" --build "$pkg" "$deb" >/dev/null
echo "$deb"
