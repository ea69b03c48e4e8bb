package ui

import (
	"fyne.io/fyne/v2/lang"

	"braid/engine/explain"
)

// Sentence says what went wrong in one short sentence of the user's
// language, by the error's kind; the error's own text is the detail shown
// behind "Details".
func Sentence(k explain.Kind) string {
	switch k {
	case explain.Unreachable:
		return lang.L("The server cannot be reached.")
	case explain.NameNotFound:
		return lang.L("The server's name is not known: the link may be mistyped, or the network is down.")
	case explain.Refused:
		return lang.L("The server refused the connection.")
	case explain.TimedOut:
		return lang.L("The server did not answer in time.")
	case explain.Dropped:
		return lang.L("The connection to the server broke off.")
	case explain.Certificate:
		return lang.L("The server's security certificate is not trusted.")
	case explain.NotFound:
		return lang.L("The server does not have the file (not found).")
	case explain.Expired:
		return lang.L("The link has expired: ask for a new one.")
	case explain.LoginNeeded:
		return lang.L("The server asks for a login, or refused the one given.")
	case explain.ProxyLogin:
		return lang.L("The proxy asks for a login, or refused the one given.")
	case explain.Forbidden:
		return lang.L("The server refuses access to the file.")
	case explain.Busy:
		return lang.L("The server is busy and asks to come back later.")
	case explain.ServerError:
		return lang.L("The server failed to answer (an error on its side).")
	case explain.DiskFull:
		return lang.L("The disk is full.")
	case explain.DiskError:
		return lang.L("Braid could not make, rename or remove the file on the disk.")
	case explain.NoPermission:
		return lang.L("Braid may not write to the folder or the file.")
	case explain.BadData:
		return lang.L("What arrived does not match the file's hash.")
	case explain.NoMirrorLeft:
		return lang.L("No server is left that can send the file.")
	case explain.Exists:
		return lang.L("A different file is already there under this name.")
	case explain.BadSignature:
		return lang.L("The file's signature does not check out.")
	case explain.BadDocument:
		return lang.L("Braid cannot read this metalink: it is damaged, cut short or not a metalink. The details say where.")
	}
	return lang.L("The download stopped; the details say why.")
}

// Explain turns an error's text into what the window shows: the sentence
// for its kind, and the text itself as the detail. Text with no kind and
// no raw fragment (the window's own words) is kept as it is.
func Explain(text string) (sentence, detail string) {
	if text == "" {
		return "", ""
	}
	k := explain.OfText(text)
	if k == explain.Unknown && plain(text) {
		return engineText(text), ""
	}
	return Sentence(k), text
}

// plain reports whether text can be shown as it is: it holds no raw
// fragment (the window's own messages, a signature's verdict).
func plain(text string) bool { return explain.RawFragment(text) == "" }
