package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Action is what Braid does with a job's file once the job is done.
type Action string

// The actions a job can have when it is done.
const (
	ActionNone    Action = ""        // nothing
	ActionOpen    Action = "open"    // open the file with the desktop's application for it
	ActionShow    Action = "show"    // show the file in the file manager
	ActionCommand Action = "command" // run WhenDone.Command with the file's path as its last argument
)

// WhenDone is what a job does once it is done (issue 23), run once by the
// runner when the job ends verified or done, in every face.
type WhenDone struct {
	Action Action `json:"action"`
	// Command is the program and its arguments, for ActionCommand: words
	// split as SplitCommand splits them, never given to a shell. The
	// file's path is added as one more argument of its own.
	Command string `json:"command,omitempty"`
}

// WhenDoneNote is what went wrong when a job's when-done action ran: Kind
// is the action, Detail the technical text (the command's exit status and
// the start of what it wrote to stderr). Faces say it in a sentence by
// Kind; the zero value means it ran well, or has not run.
type WhenDoneNote struct {
	Kind   Action `json:"kind"`
	Detail string `json:"detail"`
}

// ErrBadCommand is wrapped by the errors of a command that cannot be run
// as given: empty, or a quote left open.
var ErrBadCommand = errors.New("the command cannot be read")

// Check says whether w can be run: a known action, and for a command,
// words that split.
func (w WhenDone) Check() error {
	switch w.Action {
	case ActionNone, ActionOpen, ActionShow:
		return nil
	case ActionCommand:
		_, err := SplitCommand(w.Command)
		return err
	}
	return fmt.Errorf("unknown action %q when done", w.Action)
}

// SplitCommand splits a command line into its words as a shell would
// quote them, and does nothing else a shell does: words are separated by
// blanks; 'single quotes' keep everything inside; "double quotes" keep
// everything but \" and \\; a backslash outside quotes keeps the next
// character. No variable, glob, $(…), `…`, ; or | means anything: the
// words go to the program as they are written.
func SplitCommand(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune // the open quote, 0 outside
		esc   bool // the last character was a backslash
	)
	for _, r := range s {
		switch {
		case esc:
			if quote == '"' && r != '"' && r != '\\' {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			esc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				esc = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, in = true, true
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	switch {
	case quote != 0:
		return nil, fmt.Errorf("%w: a %c quote is not closed", ErrBadCommand, quote)
	case esc:
		return nil, fmt.Errorf("%w: it ends with a backslash", ErrBadCommand)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%w: it is empty", ErrBadCommand)
	}
	return words, nil
}

// parseWhenDone reads the stored columns; a value that does not parse
// (edited by hand) is no action rather than an error that stops the list.
func parseWhenDone(wv, nv string) (WhenDone, WhenDoneNote) {
	var w WhenDone
	var n WhenDoneNote
	if wv != "" && json.Unmarshal([]byte(wv), &w) != nil {
		w = WhenDone{}
	}
	if nv != "" && json.Unmarshal([]byte(nv), &n) != nil {
		n = WhenDoneNote{}
	}
	return w, n
}
