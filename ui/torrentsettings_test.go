package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// The settings dialog's BitTorrent fields show and return the settings,
// and a bad value is named.
func TestTorrentSettingsForm(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	in := Settings{Dir: "/data", Torrent: TorrentSettings{SeedRatio: 1.5, Port: 6881, UploadLimit: 500 << 10}}
	f := NewSettingsForm(in, w)
	out, err := f.Value()
	if err != nil {
		t.Fatal(err)
	}
	if out.Torrent != in.Torrent {
		t.Errorf("round trip %+v, want %+v", out.Torrent, in.Torrent)
	}
	f.Torrent.SeedRatio.SetText("")
	f.Torrent.Port.SetText("")
	f.Torrent.UploadLimit.SetText("")
	if out, err = f.Value(); err != nil || out.Torrent != (TorrentSettings{}) {
		t.Errorf("empty fields: %+v, %v; want no seeding, any port, no limit", out.Torrent, err)
	}
	f.Torrent.SeedRatio.SetText("-1")
	f.Torrent.Port.SetText("70000")
	f.Torrent.UploadLimit.SetText("fast")
	_, err = f.Value()
	for _, want := range []string{"seed ratio", "BitTorrent port", "upload limit"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
	f.Torrent.Port.SetText("")
	f.Torrent.UploadLimit.SetText("")
	for _, bad := range []string{"NaN", "inf"} {
		f.Torrent.SeedRatio.SetText(bad)
		if out, err := f.Value(); err == nil || !strings.Contains(err.Error(), "seed ratio") {
			t.Errorf("seed ratio %q: %+v, %v; want it refused", bad, out.Torrent, err)
		}
	}
}
