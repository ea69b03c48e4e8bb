// Package packaging holds what turns Braid's build into something a person
// installs, and the tests that build and install it:
//
//   - licences (a command): the third-party licence list Braid embeds and
//     shows from Help → About.
//   - windows/winres.json: the icon, version and manifest of braid.exe,
//     compiled by go-winres into cmd/braid/rsrc_windows_amd64.syso, which
//     is committed so that every Windows build carries them.
//   - windows/braid.nsi: the per-user Windows installer (NSIS).
//
// After a change to go.mod, the icon or the version, regenerate from the
// repository's root with `go generate ./packaging`; tests here fail until
// the committed files are current.
package packaging

//go:generate sh -c "cd .. && go run ./packaging/licences"
//go:generate sh -c "cd .. && go run github.com/tc-hib/go-winres@v0.3.3 make --in packaging/windows/winres.json --arch amd64 --out cmd/braid/rsrc"

// WinresVersion is the go-winres release that makes the .syso; go run
// fetches it by version, so it never enters go.mod.
const WinresVersion = "v0.3.3"
