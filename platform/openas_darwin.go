package platform

import "errors"

// OpenAs opens target (a file's path, or an http URL that serves it) with
// the application for files named name; see openas.go. A file is opened
// through a link with the final name; a URL cannot be given to a file
// type's application on macOS.
func OpenAs(target, name string) error {
	if isURL(target) {
		return errors.New("on macOS Braid cannot yet hand a file that streams to the application for its type; open it when it is done")
	}
	link, err := linkAs(target, name)
	if err != nil {
		return err
	}
	return run("open", link)
}
