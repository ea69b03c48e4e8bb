package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2/test"

	"braid/engine/metalink"
)

// TestPickerTitleAndMirrors: without an identity the picker's title names
// the ticked files, never one left out; the mirror list shows the ticked
// files' mirrors (host, location, priority, protocol), each once, best
// first, and follows the ticks.
func TestPickerTitleAndMirrors(t *testing.T) {
	test.NewTempApp(t)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{
		{Name: "docs/a-de.pdf", Size: 10, Languages: []string{"de"}, URLs: []metalink.URL{
			{URL: "https://de.example.org/a-de.pdf", Location: "DE", Priority: 1}}},
		{Name: "docs/a-en.pdf", Size: 10, Languages: []string{"en"}, URLs: []metalink.URL{
			{URL: "ftp://ftp.example.net/a-en.pdf", Location: "NL", Priority: 2},
			{URL: "https://us.example.com/a-en.pdf", Location: "", Priority: 1},
			{URL: "https://us.example.com/other/a-en.pdf", Priority: 5}}},
		{Name: "docs/b-en.pdf", Size: 10, Languages: []string{"en"}, URLs: []metalink.URL{
			{URL: "https://us.example.com/b-en.pdf", Priority: 3}}},
	}}
	p := NewPicker("x.meta4", doc, Settings{Dir: "/tmp", Languages: []string{"en"}}, nil)
	if got := p.Title.Text; got != "a-en.pdf and 1 more" {
		t.Errorf("title %q, want the ticked files", got)
	}
	want := []pickerMirror{
		{Host: "us.example.com", Protocol: "HTTPS", Priority: 1},
		{Host: "ftp.example.net", Location: "NL", Protocol: "FTP", Priority: 2},
	}
	if !slices.Equal(p.mirrors, want) || p.Mirrors.Length() != 2 {
		t.Errorf("mirrors %+v, want %+v", p.mirrors, want)
	}
	if got := p.MirrorsItem.Text; got != "Mirrors: 2, best us.example.com" {
		t.Errorf("mirror line %q", got)
	}
	p.SetTicked(1, false)
	p.SetTicked(2, false)
	p.SetTicked(0, true)
	if got := p.Title.Text; got != "a-de.pdf" {
		t.Errorf("title %q after ticking only a-de.pdf", got)
	}
	if got := p.MirrorsItem.Text; got != "Mirrors: 1, de.example.org" || len(p.mirrors) != 1 || p.mirrors[0].Location != "DE" {
		t.Errorf("mirror line %q, mirrors %+v", got, p.mirrors)
	}
	p.SetTicked(0, false)
	if got := p.Title.Text; got != "No file chosen" || p.MirrorsItem.Text != "Mirrors: none" {
		t.Errorf("nothing ticked: title %q, mirrors %q", got, p.MirrorsItem.Text)
	}
}
