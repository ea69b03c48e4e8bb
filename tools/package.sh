#!/usr/bin/env bash
# Package Braid for the operating system this runs on, with the fyne CLI:
#
#   tools/package.sh [-o DIR] [-- FYNE-PACKAGE-FLAGS...]
#
# It writes, into DIR (default dist/ at the top of the repository):
#   Linux and the BSDs  Braid.tar.xz: usr/local/{bin,share/applications,
#                       share/pixmaps} and a Makefile (make install, or
#                       make user-install for ~/.local). The desktop entry
#                       opens files and links (%U) and lists Braid's MIME
#                       types.
#   macOS               Braid.app, with the document types, Metalink type
#                       declarations and magnet: URL scheme of
#                       assets/macos/document-types.plist merged into its
#                       Info.plist (PlistBuddy, so on macOS only), then
#                       signed ad hoc again since the plist changed.
#   Windows             Braid.exe with its icon and manifest built in.
#
# `braid install` registers the file types for the current user on Linux and
# Windows; a macOS app is registered by Launch Services once it is in
# /Applications (or opened once).
#
# Fyne cannot cross-package a cgo program, so each OS is packaged on itself.
# Needs Go, a C compiler and the system's OpenGL/X11 development headers
# (make setup installs them on Debian), plus tar and xz on Linux.
#
# FYNE_TOOLS (default v1.7.0, the fyne CLI released with Fyne 2.7) picks the
# fyne.io/tools version; it is fetched and built by `go run`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/dist
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "package.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

fyne_tools=${FYNE_TOOLS:-v1.7.0}
# Every go command of this repository needs the nosqlite,disable_libutp tags (see Makefile);
# fyne's own `go build` of Braid inherits it from GOFLAGS and --tags.
export GOFLAGS=-tags=nosqlite,disable_libutp
fyne() { go run "fyne.io/tools/cmd/fyne@$fyne_tools" "$@"; }

goos=$(go env GOOS)
src=$root/cmd/braid
meta=$src/FyneApp.toml

# fyne reads FyneApp.toml from the main package's folder and adds one to its
# Build number after packaging. The repository keeps it at the top, so it is
# staged beside the main package, with the icon path made absolute, and
# removed again: packaging leaves the work tree as it found it.
staged=
cleanup() {
	if [ -n "$staged" ]; then rm -f "$meta"; fi
	if [ -n "${saved:-}" ]; then mv -f "$saved" "$meta"; fi
	rm -rf "${work:-}"
}
trap cleanup EXIT
work=$(mktemp -d)
if [ -e "$meta" ]; then
	saved=$work/FyneApp.toml.saved
	cp -p "$meta" "$saved"
else
	staged=1
	sed -E 's#^([[:space:]]*Icon[[:space:]]*=[[:space:]]*")([^/"][^"]*)"#\1'"$root"'/\2"#' \
		"$root/FyneApp.toml" >"$meta"
fi

echo "package.sh: fyne.io/tools $fyne_tools, packaging for $goos into $out" >&2
(cd "$out" && fyne package --os "$goos" --src "$src" --tags nosqlite,disable_libutp "$@")

mime="application/metalink4+xml;application/metalink+xml;application/x-bittorrent;x-scheme-handler/magnet;"

case $goos in
linux | freebsd | netbsd | openbsd)
	tarball=$out/Braid.tar.xz
	[ "$goos" = openbsd ] && tarball=$out/Braid.tar.gz
	# fyne's desktop entry (tools v1.7) has no MimeType key: add it, so a
	# system-wide install offers Braid for the types shared-mime-info
	# already knows (an entry that has one is left alone).
	mkdir "$work/tar"
	tar -xf "$tarball" -C "$work/tar"
	desktop=$(find "$work/tar/usr" -name '*.desktop' | head -n 1)
	if [ -z "$desktop" ]; then
		echo "package.sh: no desktop entry in $tarball" >&2
		exit 1
	fi
	if ! grep -q '^MimeType=' "$desktop"; then
		sed -i "/^Exec=/a MimeType=$mime" "$desktop"
	fi
	# Without a field code the desktop would start Braid without the file
	# (FyneApp.toml's ExecParams should say " %U").
	sed -i -E '/^Exec=/{/%[fFuU]/!s/$/ %U/}' "$desktop"
	if command -v desktop-file-validate >/dev/null; then
		desktop-file-validate "$desktop"
	fi
	case $tarball in
	*.xz) tar -cJf "$tarball" -C "$work/tar" usr Makefile ;;
	*) tar -czf "$tarball" -C "$work/tar" usr Makefile ;;
	esac
	echo "package.sh: wrote $tarball" >&2
	;;
darwin)
	app=$out/Braid.app
	plist=$app/Contents/Info.plist
	for key in CFBundleDocumentTypes UTExportedTypeDeclarations UTImportedTypeDeclarations CFBundleURLTypes; do
		# Merge skips keys that are there; replace them instead, so a
		# re-run after editing the fragment takes effect.
		/usr/libexec/PlistBuddy -c "Delete :$key" "$plist" 2>/dev/null || true
	done
	/usr/libexec/PlistBuddy -c "Merge $root/assets/macos/document-types.plist" "$plist"
	plutil -lint "$plist" >/dev/null
	if command -v codesign >/dev/null; then
		codesign --force --deep --sign - "$app"
	fi
	echo "package.sh: wrote $app" >&2
	;;
windows)
	# fyne leaves the Windows executable beside the sources.
	for exe in "$src/Braid.exe" "$src/braid.exe"; do
		if [ -e "$exe" ]; then
			mv -f "$exe" "$out/Braid.exe"
			echo "package.sh: wrote $out/Braid.exe" >&2
			break
		fi
	done
	;;
esac
