package ui

import (
	"cmp"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
)

// pickerMirror is one mirror of the ticked files, as the picker lists it.
type pickerMirror struct {
	Host, Location, Protocol string
	Priority                 int
}

// mirrorWidths are the picker's mirror list columns: host, location,
// priority, protocol.
var mirrorListWidths = []float32{0, 90, 70, 90}

// mirrorsOf lists the mirrors of the ticked files, each host and protocol
// once at its best place, best first: in the order the engine tries them
// for a user in locations (metalink.URLOrder: the user's countries first,
// then priority), then as the document first lists them.
func mirrorsOf(doc *metalink.Document, ticked []bool, locations []string) []pickerMirror {
	var out []pickerMirror
	seen := map[string]int{}
	order := metalink.URLOrder(locations)
	asURL := func(m pickerMirror) metalink.URL { return metalink.URL{Location: m.Location, Priority: m.Priority} }
	for i, f := range doc.Files {
		if i >= len(ticked) || !ticked[i] {
			continue
		}
		for _, u := range f.URLs {
			m := pickerMirror{Host: u.URL, Location: u.Location, Priority: u.Priority}
			if pu, err := url.Parse(u.URL); err == nil && pu.Host != "" {
				m.Host, m.Protocol = pu.Host, strings.ToUpper(pu.Scheme)
			}
			key := m.Protocol + " " + m.Host
			if k, ok := seen[key]; ok {
				if order(asURL(m), asURL(out[k])) < 0 {
					out[k] = m
				}
				continue
			}
			seen[key] = len(out)
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b pickerMirror) int { return order(asURL(a), asURL(b)) })
	return out
}

// buildLists puts the file list and the mirror list on two tabs, the
// mirrors' tab named by how many there are.
func (p *Picker) buildLists() fyne.CanvasObject {
	p.Mirrors = widget.NewList(
		func() int { return len(p.mirrors) },
		func() fyne.CanvasObject {
			return container.New(&columns{widths: mirrorListWidths},
				cellLabel(fyne.TextAlignLeading), cellLabel(fyne.TextAlignLeading),
				cellLabel(fyne.TextAlignTrailing), cellLabel(fyne.TextAlignLeading))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(p.mirrors) {
				return
			}
			m := p.mirrors[i]
			cells := o.(*fyne.Container).Objects
			cells[0].(*widget.Label).SetText(m.Host)
			cells[1].(*widget.Label).SetText(cmp.Or(m.Location, "—"))
			cells[2].(*widget.Label).SetText(strconv.Itoa(m.Priority))
			cells[3].(*widget.Label).SetText(m.Protocol)
		})
	list := container.NewBorder(header(mirrorListWidths, lang.L("Host"), lang.L("Location"), lang.L("Priority"), lang.L("Protocol")),
		nil, nil, nil, p.Mirrors)
	p.MirrorsItem = container.NewTabItemWithIcon("", theme.StorageIcon(), list)
	files := container.NewTabItemWithIcon(lang.L("Files"), theme.FileIcon(), p.Files)
	if viaTorrent(p.Doc) {
		// A torrent's sources are its peers, found once it runs.
		p.lists = container.NewAppTabs(files)
		return p.lists
	}
	p.lists = container.NewAppTabs(files, p.MirrorsItem)
	return p.lists
}

// updateMirrors lists the mirrors of the files ticked now.
func (p *Picker) updateMirrors() {
	p.mirrors = mirrorsOf(p.Doc, p.Ticked, p.Prefs().Locations)
	title := lang.L("Mirrors: none")
	switch n := len(p.mirrors); {
	case n == 1:
		title = fmt.Sprintf(lang.L("Mirrors: 1, %s"), p.mirrors[0].Host)
	case n > 1:
		title = fmt.Sprintf(lang.L("Mirrors: %s, best %s"), count(n), p.mirrors[0].Host)
	}
	if p.MirrorsItem.Text != title {
		p.MirrorsItem.Text = title
		p.lists.Refresh()
	}
	p.Mirrors.Refresh()
}

// updateTitle names what will be downloaded: the document's identity
// when it has one, else the first ticked file and how many more.
func (p *Picker) updateTitle() {
	title := p.identity
	if title == "" {
		var names []string
		for i, f := range p.Doc.Files {
			if i < len(p.Ticked) && p.Ticked[i] {
				names = append(names, path.Base(f.Name))
			}
		}
		switch len(names) {
		case 0:
			title = lang.L("No file chosen")
		case 1:
			title = names[0]
		default:
			title = fmt.Sprintf(lang.L("%s and %s more"), names[0], count(len(names)-1))
		}
	}
	if p.Title.Text != title {
		p.Title.SetText(title)
	}
}
