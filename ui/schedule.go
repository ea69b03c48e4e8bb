package ui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// Schedule is when downloads may run and which speed limit is in force,
// as the window edits it; the backend keeps and enforces it.
type Schedule struct {
	// Windows are the daily times downloads may run; none: any time.
	Windows []TimeWindow
	// PausedUntil pauses every download until then; zero: not paused.
	PausedUntil time.Time
	// AltSpeed puts Settings.AltSpeedLimit in force.
	AltSpeed bool
}

// TimeWindow is a daily span of local time in minutes after midnight;
// End before Start runs past midnight. Days are the weekdays it starts
// on; none: every day.
type TimeWindow struct {
	Days       []time.Weekday
	Start, End int
}

// Pauses are the choices of "Pause all for".
var Pauses = []time.Duration{15 * time.Minute, time.Hour, 3 * time.Hour, 8 * time.Hour}

func (w *Window) loadSchedule() {
	s, err := w.Backend.Schedule()
	if err != nil {
		w.showProblem(fmt.Errorf(lang.L("read the schedule: %w"), err))
		return
	}
	w.Schedule = s
	w.showSchedule()
}

// setSchedule stores s and shows it.
func (w *Window) setSchedule(s Schedule) {
	w.Schedule = s
	w.showSchedule()
	w.command(lang.L("Save the schedule"), func() error { return w.Backend.SetSchedule(s) })
}

// showSchedule shows the schedule's state on the Slow button and in the
// status bar.
func (w *Window) showSchedule() {
	b := w.Toolbar.AltSpeed
	imp := widget.LowImportance
	if w.Schedule.AltSpeed {
		imp = widget.WarningImportance
	}
	if b.Importance != imp {
		b.Importance = imp
		b.Refresh()
	}
	w.showModel()
}

// scheduleText is the status bar's word on the schedule, "" when it
// lets everything run at full speed.
func (w *Window) scheduleText() string {
	var parts []string
	if until := w.Schedule.PausedUntil; until.After(now()) {
		parts = append(parts, fmt.Sprintf(lang.L("all paused until %s"), until.Local().Format("15:04")))
	}
	if len(w.Schedule.Windows) > 0 {
		parts = append(parts, fmt.Sprintf(lang.L("runs %s"), windowsText(w.Schedule.Windows)))
	}
	if w.Schedule.AltSpeed {
		limit := lang.L("no limit")
		if w.Settings.AltSpeedLimit > 0 {
			limit = rateText(w.Settings.AltSpeedLimit)
		}
		parts = append(parts, fmt.Sprintf(lang.L("slow: %s"), limit))
	}
	return strings.Join(parts, "  ·  ")
}

// ToggleAltSpeed switches between the speed limit and the alternative
// one.
//
// With no alternative limit set, turning it on would change nothing: the
// window says so and offers the Settings instead.
func (w *Window) ToggleAltSpeed() {
	s := w.Schedule
	if !s.AltSpeed && w.Settings.AltSpeedLimit <= 0 {
		d := dialog.NewConfirm(lang.L("No slower limit set"),
			lang.L("Slow switches to the alternative speed limit, and none is set: it would change nothing.\nSet one in Settings?"),
			func(ok bool) {
				if ok {
					w.ShowSettings()
				}
			}, w.Win)
		d.SetConfirmText(lang.L("Settings…"))
		w.keyed(d, d.Hide, d.Hide)
		d.Show()
		w.setMenu(w.Selection())
		return
	}
	s.AltSpeed = !s.AltSpeed
	w.setSchedule(s)
}

// PauseAllFor pauses every download for d; ResumeSchedule ends such a
// pause early.
func (w *Window) PauseAllFor(d time.Duration) {
	s := w.Schedule
	s.PausedUntil = now().Add(d).Truncate(time.Minute)
	w.setSchedule(s)
}

// ResumeSchedule ends a pause of all downloads.
func (w *Window) ResumeSchedule() {
	s := w.Schedule
	s.PausedUntil = time.Time{}
	w.setSchedule(s)
}

// ScheduleForm is the schedule dialog's parts, exported for tests.
type ScheduleForm struct {
	Limited *keyCheck // only run in the window below
	From    *Entry    // "01:00"
	To      *Entry    // "07:00"
	Days    *keyCheckGroup
	Content fyne.CanvasObject
}

// weekdays in the order the form lists them, Monday first.
var weekdays = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday}

func dayName(d time.Weekday) string {
	return []string{lang.L("Sun"), lang.L("Mon"), lang.L("Tue"), lang.L("Wed"), lang.L("Thu"), lang.L("Fri"), lang.L("Sat")}[d]
}

// NewScheduleForm builds the schedule form showing s's first window.
func NewScheduleForm(s Schedule) *ScheduleForm {
	LoadTranslations()
	f := &ScheduleForm{From: NewEntry(), To: NewEntry()}
	f.Limited = newDialogCheck(lang.L("Only download at these times"), nil)
	var names []string
	for _, d := range weekdays {
		names = append(names, dayName(d))
	}
	f.Days = newKeyCheckGroup(names)
	f.Days.Horizontal = true
	win := TimeWindow{Start: 60, End: 7 * 60}
	if len(s.Windows) > 0 {
		win = s.Windows[0]
		f.Limited.SetChecked(true)
	}
	f.From.SetText(clockText(win.Start))
	f.To.SetText(clockText(win.End))
	var on []string
	for _, d := range weekdays {
		if len(win.Days) == 0 || slices.Contains(win.Days, d) {
			on = append(on, dayName(d))
		}
	}
	f.Days.SetSelected(on)
	for _, e := range []*Entry{f.From, f.To} {
		e.SetPlaceHolder("HH:MM")
		e.Validator = func(t string) error { _, err := parseClock(t); return err }
	}
	form := widget.NewForm(
		widget.NewFormItem("", f.Limited),
		widget.NewFormItem(lang.L("From"), f.From),
		widget.NewFormItem(lang.L("To"), f.To),
		widget.NewFormItem(lang.L("Days"), f.Days),
	)
	hint := newHint(lang.L("A window that ends before it starts runs past midnight."))
	f.Content = container.NewVBox(form, hint)
	return f
}

// Windows reads the form.
func (f *ScheduleForm) Windows() ([]TimeWindow, error) {
	if !f.Limited.Checked {
		return nil, nil
	}
	from, err := parseClock(f.From.Text)
	if err != nil {
		return nil, fmt.Errorf(lang.L("from: %w"), err)
	}
	to, err := parseClock(f.To.Text)
	if err != nil {
		return nil, fmt.Errorf(lang.L("to: %w"), err)
	}
	var days []time.Weekday
	for _, d := range weekdays {
		if slices.Contains(f.Days.Selected, dayName(d)) {
			days = append(days, d)
		}
	}
	if len(days) == 0 {
		return nil, errors.New(lang.L("days: choose at least one day"))
	}
	if len(days) == len(weekdays) {
		days = nil
	}
	return []TimeWindow{{Days: days, Start: from, End: to}}, nil
}

// ShowSchedule opens the schedule dialog.
func (w *Window) ShowSchedule() {
	f := NewScheduleForm(w.Schedule)
	d := dialog.NewCustomConfirm(lang.L("Schedule"), lang.L("Save"), lang.L("Cancel"), f.Content, func(ok bool) {
		if !ok {
			return
		}
		wins, err := f.Windows()
		if err != nil {
			w.showError(err)
			return
		}
		s := w.Schedule
		s.Windows = wins
		w.setSchedule(s)
	}, w.Win)
	for _, e := range []*Entry{f.From, f.To} {
		e.OnSubmitted = func(string) { d.Confirm() }
		e.OnEscape = d.Hide
	}
	w.keyed(d, d.Confirm, d.Hide)
	d.Resize(fyne.NewSize(560, d.MinSize().Height))
	d.Show()
}

// clockText formats minutes after midnight as 07:30.
func clockText(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

// parseClock reads a time of day, "7:30", "07:30" or "7", as minutes
// after midnight.
func parseClock(s string) (int, error) {
	s = strings.TrimSpace(s)
	h, m, found := strings.Cut(s, ":")
	hh, err := strconv.Atoi(h)
	mm := 0
	if err == nil && found {
		mm, err = strconv.Atoi(m)
	}
	if err != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, fmt.Errorf(lang.L("%q is not a time of day such as 07:30"), s)
	}
	return hh*60 + mm, nil
}

// windowsText says when the windows run: "01:00–07:00", "Sat, Sun".
func windowsText(ws []TimeWindow) string {
	var parts []string
	for _, w := range ws {
		t := clockText(w.Start) + "–" + clockText(w.End)
		if w.Start == w.End {
			t = lang.L("all day")
		}
		if len(w.Days) > 0 {
			var days []string
			for _, d := range w.Days {
				days = append(days, dayName(d))
			}
			t += " " + strings.Join(days, ", ")
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "; ")
}
