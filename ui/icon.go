package ui

import (
	"fyne.io/fyne/v2"

	"braid/assets"
)

// AppIcon is Braid's icon (three strands braided into one download), for
// the window, the tray and notifications.
var AppIcon = fyne.NewStaticResource("braid.png", assets.Icon)
