package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// KeysSection is the settings' list of the OpenPGP keys the user trusts
// to sign downloads, with import from a file or a link and remove. Its
// parts are exported for tests; it changes only on the UI goroutine, and
// reads and writes the keyring off it (an import may fetch a URL).
type KeysSection struct {
	Keys     []Key
	Selected int // index in Keys of the chosen key; -1: none

	List    *widget.List
	Source  *Entry // a key file's path or URL, to import
	Browse  *widget.Button
	Import  *widget.Button
	Remove  *widget.Button
	Message *widget.Label // what the last import or removal did, or why not
	Content fyne.CanvasObject

	w  *Window
	kr Keyring
}

// newKeysSection builds the section over kr and starts reading its keys.
func (w *Window) newKeysSection(kr Keyring) *KeysSection {
	k := &KeysSection{Selected: -1, w: w, kr: kr}
	k.List = widget.NewList(func() int { return len(k.Keys) }, func() fyne.CanvasObject {
		name := widget.NewLabel("")
		name.Truncation = fyne.TextTruncateEllipsis
		fpr := widget.NewLabel("")
		fpr.TextStyle.Monospace = true
		fpr.SizeName = theme.SizeNameCaptionText
		return container.NewVBox(name, fpr)
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i >= len(k.Keys) {
			return
		}
		key := k.Keys[i]
		rows := o.(*fyne.Container).Objects
		rows[0].(*widget.Label).SetText(keyLine(key))
		rows[1].(*widget.Label).SetText(key.Fingerprint)
	})
	k.List.OnSelected = func(i widget.ListItemID) {
		k.Selected = i
		k.Remove.Enable()
	}
	k.Source = NewEntry()
	k.Source.SetPlaceHolder(lang.L("key file or https:// link of the publisher's key"))
	k.Source.OnSubmitted = func(string) { k.ImportSource() }
	k.Browse = widget.NewButtonWithIcon("", theme.FolderOpenIcon(), k.browse)
	k.Import = widget.NewButtonWithIcon(lang.L("Import"), theme.ContentAddIcon(), k.ImportSource)
	k.Remove = widget.NewButtonWithIcon(lang.L("Remove"), theme.DeleteIcon(), k.RemoveSelected)
	k.Remove.Disable()
	k.Message = widget.NewLabel("")
	k.Message.Wrapping = fyne.TextWrapWord
	k.Content = container.NewBorder(
		widget.NewLabelWithStyle(lang.L("Keys you trust to sign downloads"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewVBox(
			container.NewBorder(nil, nil, nil, container.NewHBox(k.Browse, k.Import, k.Remove), k.Source),
			k.Message),
		nil, nil, k.List)
	k.reload("")
	return k
}

// keyLine is a key's name and email, or a note when it has neither.
func keyLine(k Key) string {
	s := strings.TrimSpace(k.Name)
	if k.Email != "" {
		s = strings.TrimSpace(s + " <" + k.Email + ">")
	}
	if s == "" {
		s = lang.L("(no name)")
	}
	if k.Revoked {
		s += " · " + lang.L("revoked")
	}
	return s
}

// reload reads the keys off the UI goroutine and shows them with msg.
func (k *KeysSection) reload(msg string) {
	k.w.wg.Add(1)
	go func() {
		defer k.w.wg.Done()
		keys, err := k.kr.Keys()
		k.w.do(func() {
			if err != nil {
				msg = fmt.Sprintf(lang.L("read the keyring: %v"), err)
			}
			k.Keys = keys
			k.Selected = -1
			k.List.UnselectAll()
			k.Remove.Disable()
			k.List.Refresh()
			k.Message.SetText(msg)
		})
	}()
}

// ImportSource imports the keys of the file or link in Source.
func (k *KeysSection) ImportSource() {
	src := strings.TrimSpace(k.Source.Text)
	if src == "" {
		k.Message.SetText(lang.L("Give a key file or a link to import."))
		return
	}
	k.w.wg.Add(1)
	go func() {
		defer k.w.wg.Done()
		keys, err := k.kr.ImportKey(k.w.ctx, src)
		if err != nil {
			// A sentence by the error's kind: a link that cannot be
			// fetched says why, not Go's words.
			why, _ := Explain(err.Error())
			k.w.do(func() { k.Message.SetText(fmt.Sprintf(lang.L("import %s: %v"), src, why)) })
			return
		}
		var names []string
		for _, key := range keys {
			names = append(names, keyLine(key))
		}
		k.w.do(func() { k.Source.SetText("") })
		k.reload(fmt.Sprintf(lang.L("Imported: %s"), strings.Join(names, ", ")))
	}()
}

// RemoveSelected takes the chosen key out of the keyring.
func (k *KeysSection) RemoveSelected() {
	if k.Selected < 0 || k.Selected >= len(k.Keys) {
		return
	}
	key := k.Keys[k.Selected]
	k.w.wg.Add(1)
	go func() {
		defer k.w.wg.Done()
		if err := k.kr.RemoveKey(key.Fingerprint); err != nil {
			k.w.do(func() { k.Message.SetText(fmt.Sprintf(lang.L("remove %s: %v"), key.Fingerprint, err)) })
			return
		}
		k.reload(fmt.Sprintf(lang.L("Removed: %s"), keyLine(key)))
	}()
}

func (k *KeysSection) browse() {
	k.w.chooseFile(lang.L("Key file"), nil, k.Source.SetText)
}

// ImportKeyDialog asks to import the key that signed a job, from a file
// or a link the user gives: what the details' "Import key…" offers.
func (w *Window) ImportKeyDialog(fingerprint string) {
	kr, ok := w.Backend.(Keyring)
	if !ok {
		return
	}
	e := NewEntry()
	e.SetPlaceHolder(lang.L("key file or https:// link of the publisher's key"))
	w.askText(fmt.Sprintf(lang.L("Import key %s"), fingerprint), lang.L("Key"), lang.L("Import"), e, func(src string) {
		w.command(lang.L("Import key"), func() error {
			_, err := kr.ImportKey(w.ctx, src)
			return err
		})
	})
}
