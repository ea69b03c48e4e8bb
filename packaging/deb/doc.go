// Package deb holds Braid's Debian package: build.sh builds it with
// dpkg-deb, and the test builds it, installs it with dpkg into a private
// root, checks what a desktop and the browsers read, and removes it again.
// The package has no Go code of its own.
package deb
