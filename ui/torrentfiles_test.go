package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// The Files tab offers each fetched file of a torrent whose files can be
// chosen a priority, Normal or High as the backend says, and choosing
// High asks the backend; a skipped file has no priority to choose, and a
// file that cannot be chosen shows neither box nor choice.
func TestFilePriorityChoice(t *testing.T) {
	test.NewTempApp(t)
	d := NewDetails()
	d.OnWant = func(JobID, string, bool) {}
	type ask struct {
		name string
		high bool
	}
	var asked []ask
	d.OnPriority = func(id JobID, name string, high bool) {
		if id != 4 {
			t.Errorf("OnPriority for job %d", id)
		}
		asked = append(asked, ask{name, high})
	}
	paused := Detail{Job: Job{ID: 4, Name: "pair", State: Paused, Torrent: true}, Files: []FileDetail{
		{Name: "pair/a.bin", Size: 10, Choosable: true},
		{Name: "pair/b.bin", Size: 10, Choosable: true, High: true},
		{Name: "pair/c.bin", Size: 10, Skipped: true, Choosable: true},
		{Name: "pair/d.bin", Size: 10},
	}}
	d.Show(paused)
	rows := map[string]*fileRow{}
	for i := range paused.Files {
		r := d.newFileRow().(*fileRow)
		d.updateFileRow(i, r)
		rows[paused.Files[i].Name] = r
	}
	if r := rows["pair/a.bin"]; !r.prio.Visible() || r.prio.Selected != "Normal" {
		t.Errorf("a normal file: choice shown %v, %q", r.prio.Visible(), r.prio.Selected)
	}
	if r := rows["pair/b.bin"]; !r.prio.Visible() || r.prio.Selected != "High" {
		t.Errorf("a high file: choice shown %v, %q", r.prio.Visible(), r.prio.Selected)
	}
	if r := rows["pair/c.bin"]; !r.want.Visible() || r.want.Checked || r.prio.Visible() {
		t.Errorf("a skipped file of a paused torrent: box %v ticked %v, choice %v", r.want.Visible(), r.want.Checked, r.prio.Visible())
	}
	if r := rows["pair/d.bin"]; r.want.Visible() || r.prio.Visible() {
		t.Error("a file that cannot be chosen has a box or a choice")
	}
	if len(asked) != 0 {
		t.Fatalf("showing the rows asked %v", asked)
	}
	rows["pair/a.bin"].prio.SetSelected("High")
	if len(asked) != 1 || asked[0] != (ask{"pair/a.bin", true}) {
		t.Errorf("choosing High asked %v", asked)
	}
}
