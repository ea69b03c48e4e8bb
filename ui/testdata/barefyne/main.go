// Command barefyne is the floor the window's idle CPU is measured
// against: a Fyne window of Braid's size with one label and nothing else,
// under the same theme.
package main

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("org.example.barefyne")
	w := a.NewWindow("Bare Fyne")
	w.SetContent(widget.NewLabel("A bare Fyne window"))
	w.Resize(fyne.NewSize(1100, 720))
	w.ShowAndRun()
}
