package ui

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// TorrentSettings are the BitTorrent choices the settings dialog offers.
type TorrentSettings struct {
	// SeedRatio: a finished torrent uploads until it has sent this many
	// times its size while Braid runs; 0 means do not seed.
	SeedRatio float64
	// Port is where peers reach Braid; 0 picks a free port. It applies
	// from the next start.
	Port int
	// UploadLimit is bytes per second sent to peers; 0: none.
	UploadLimit int64
}

// torrentForm is the settings dialog's BitTorrent part.
type torrentForm struct {
	SeedRatio, Port, UploadLimit *Entry
}

// newTorrentForm builds the BitTorrent fields showing s and appends them
// to form.
func newTorrentForm(s TorrentSettings, form *widget.Form) *torrentForm {
	f := &torrentForm{SeedRatio: NewEntry(), Port: NewEntry(), UploadLimit: NewEntry()}
	f.SeedRatio.SetText(strconv.FormatFloat(s.SeedRatio, 'g', -1, 64))
	f.SeedRatio.Validator = func(t string) error { _, err := parseRatio(t); return err }
	f.Port.SetText(intText(s.Port))
	f.Port.SetPlaceHolder(lang.L("any free port"))
	f.Port.Validator = func(t string) error { _, err := parsePort(t); return err }
	f.UploadLimit.SetText(rateText(s.UploadLimit))
	f.UploadLimit.SetPlaceHolder(lang.L("no limit"))
	f.UploadLimit.Validator = func(t string) error { _, err := ParseRate(t); return err }
	for _, it := range []struct {
		label string
		o     fyne.CanvasObject
		hint  string
	}{
		{lang.L("Seed ratio"), f.SeedRatio, lang.L("a finished torrent uploads this many times its size; 0 for none")},
		{lang.L("BitTorrent port"), f.Port, lang.L("where peers reach Braid; from the next start")},
		{lang.L("Upload limit"), f.UploadLimit, lang.L("to peers: 500 KiB/s; empty for none")},
	} {
		fi := widget.NewFormItem(it.label, it.o)
		fi.HintText = it.hint
		form.AppendItem(fi)
	}
	return f
}

// value reads the fields, naming the one that does not parse.
func (f *torrentForm) value() (TorrentSettings, error) {
	var s TorrentSettings
	var errs []error
	var err error
	if s.SeedRatio, err = parseRatio(f.SeedRatio.Text); err != nil {
		errs = append(errs, fmt.Errorf(lang.L("seed ratio: %w"), err))
	}
	if s.Port, err = parsePort(f.Port.Text); err != nil {
		errs = append(errs, fmt.Errorf(lang.L("BitTorrent port: %w"), err))
	}
	if s.UploadLimit, err = ParseRate(f.UploadLimit.Text); err != nil {
		errs = append(errs, fmt.Errorf(lang.L("upload limit: %w"), err))
	}
	return s, errors.Join(errs...)
}

func parseRatio(t string) (float64, error) {
	t = strings.TrimSpace(t)
	if t == "" {
		return 0, nil
	}
	r, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(r) || r < 0 || r > 1000 {
		return 0, fmt.Errorf(lang.L("%q is not a ratio from 0 to 1000"), t)
	}
	return r, nil
}

func parsePort(t string) (int, error) {
	t = strings.TrimSpace(t)
	if t == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 0 || n > 65535 {
		return 0, fmt.Errorf(lang.L("%q is not a port from 0 to 65535"), t)
	}
	return n, nil
}

// keyed makes Enter in a field save the dialog and Escape close it, as in
// the dialog's other fields.
func (f *torrentForm) keyed(save, cancel func()) {
	for _, e := range []*Entry{f.SeedRatio, f.Port, f.UploadLimit} {
		e.OnSubmitted = func(string) { save() }
		e.OnEscape = cancel
	}
}
