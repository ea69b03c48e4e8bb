// Package assets holds what Braid ships inside its binary: the icon, drawn
// by tools/icongen at every size a desktop asks for, and the licences.
package assets

import (
	"embed"
	"fmt"
)

// Icon is the 512 px application icon (PNG).
//
//go:embed icon.png
var Icon []byte

//go:embed icons/*.png
var icons embed.FS

// Licence names the licence Braid is distributed under: LICENSE at the
// repository's root, and the installers' licence page.
const Licence = "Apache License 2.0"

// ThirdPartyLicences is the text of the licences and notices of the Go
// standard library and of every module linked into braid, written by
// packaging/licences from go.mod (a test there keeps it current).
//
//go:embed third-party-licences.txt
var ThirdPartyLicences string

// IconSizes are the edge lengths, in pixels, of the icons drawn for desktops.
var IconSizes = []int{16, 32, 48, 128, 256}

// Icons returns the PNG icon for each of IconSizes, plus 512.
func Icons() map[int][]byte {
	out := map[int][]byte{512: Icon}
	for _, s := range IconSizes {
		data, err := icons.ReadFile(fmt.Sprintf("icons/%d.png", s))
		if err != nil {
			panic(fmt.Sprintf("assets: icon %d px missing from the binary: %v", s, err))
		}
		out[s] = data
	}
	return out
}
