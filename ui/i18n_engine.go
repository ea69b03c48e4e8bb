package ui

import (
	"fmt"
	"regexp"
	"strings"

	"fyne.io/fyne/v2/lang"

	"braid/engine/signature"
)

// The engine says why in English, for logs and the command line. What of
// it the window shows is said here in the user's language: from the
// engine's facts where it gives them (a file's languages and systems, a
// signature's status), else by the rule a message states, matched by its
// wording (engineRules); TestEngineRulesCoverTheEngine keeps the two in
// step with the engine's sources.

// choiceWhy is why metalink.Select left a file out (its reasons, joined
// by "; ") in the user's language.
func choiceWhy(why string) string {
	if why == "" {
		return ""
	}
	parts := strings.Split(why, "; ")
	for i, p := range parts {
		parts[i] = engineText(p)
	}
	return strings.Join(parts, "; ")
}

// engineRule is one message of the engine: its wording, with a group for
// each value in it, and the translation key it is said with (its verbs,
// %s, take the groups in order).
type engineRule struct {
	re  *regexp.Regexp
	key string
}

// engineRules are the engine's messages the window shows: why a name is
// refused for safety (metalink.SafeName), why a document's file is
// refused (the Metalink reader), and why the queue paused a job for a
// problem of its own (the runner's destProblem, queue.SecretLost).
var engineRules = []engineRule{
	// Why metalink.Select left a file out.
	{regexp.MustCompile(`^for (.+), not this system \((.+)\)$`), engineKey("for %s, not this system (%s)")},
	{regexp.MustCompile(`^for (.+), not (.+)$`), engineKey("for %s, not %s")},
	{regexp.MustCompile(`^language (.+): no file is in (.+), and (.+) is taken instead$`), engineKey("language %s: no file is in %s, and %s is taken instead")},
	{regexp.MustCompile(`^language (.+): another file is a closer match for (.+)$`), engineKey("language %s: another file is a closer match for %s")},
	{regexp.MustCompile(`^language (.+) does not match (.+)$`), engineKey("language %s does not match %s")},
	{regexp.MustCompile(`^the English one$`), engineKey("the English one")},
	{regexp.MustCompile(`^the first listed \((.+)\)$`), engineKey("the first listed (%s)")},
	{regexp.MustCompile(`^the name is empty$`), engineKey("the name is empty")},
	{regexp.MustCompile(`^the name is longer than (\d+) bytes$`), engineKey("the name is longer than %s bytes")},
	{regexp.MustCompile(`^the name is not valid UTF-8$`), engineKey("the name is not valid UTF-8")},
	{regexp.MustCompile(`^an absolute path would be written outside the download folder$`), engineKey("an absolute path would be written outside the download folder")},
	{regexp.MustCompile(`^a drive letter \((.+)\) would be written outside the download folder$`), engineKey("a drive letter (%s) would be written outside the download folder")},
	{regexp.MustCompile(`^it contains the control character (U\+[0-9A-F]+)$`), engineKey("it contains the control character %s")},
	{regexp.MustCompile(`^it contains a backslash, which Windows reads as a folder separator$`), engineKey("it contains a backslash, which Windows reads as a folder separator")},
	{regexp.MustCompile(`^it contains a colon, which Windows reads as a drive letter or an alternate data stream$`), engineKey("it contains a colon, which Windows reads as a drive letter or an alternate data stream")},
	{regexp.MustCompile(`^it contains (.+), which Windows does not allow in file names$`), engineKey("it contains %s, which Windows does not allow in file names")},
	{regexp.MustCompile(`^it contains the invisible character (U\+[0-9A-F]+), which can disguise the name$`), engineKey("it contains the invisible character %s, which can disguise the name")},
	{regexp.MustCompile(`^it has an empty path element \("//" or a trailing "/"\)$`), engineKey(`it has an empty path element ("//" or a trailing "/")`)},
	{regexp.MustCompile(`^it has a "\." path element$`), engineKey(`it has a "." path element`)},
	{regexp.MustCompile(`^a "\.\." path element would climb out of the download folder$`), engineKey(`a ".." path element would climb out of the download folder`)},
	{regexp.MustCompile(`^the path element (.+) is only dots and spaces, which Windows trims to nothing or "\.\."$`), engineKey(`the path element %s is only dots and spaces, which Windows trims to nothing or ".."`)},
	{regexp.MustCompile(`^the path element (.+) ends in a dot or a space, which Windows drops$`), engineKey("the path element %s ends in a dot or a space, which Windows drops")},
	{regexp.MustCompile(`^a path element is longer than (\d+) bytes$`), engineKey("a path element is longer than %s bytes")},
	{regexp.MustCompile(`^(.+) is a device name on Windows$`), engineKey("%s is a device name on Windows")},
	{regexp.MustCompile(`^unsafe file name ("(?:[^"\\]|\\.)*"): (.+)$`), engineKey("unsafe file name %s: %s")},
	{regexp.MustCompile(`^the <file> on line (\d+) has no name$`), engineKey("the <file> on line %s has no name")},
	{regexp.MustCompile(`^its metaurl names an unsafe path inside the torrent: (.+)$`), engineKey("its metaurl names an unsafe path inside the torrent: %s")},
	{regexp.MustCompile(`^name clash: the earlier file (.+) is where this file needs a folder$`), engineKey("name clash: the earlier file %s is where this file needs a folder")},
	{regexp.MustCompile(`^duplicate name: an earlier file of the document is also called (.+)$`), engineKey("duplicate name: an earlier file of the document is also called %s")},
	{regexp.MustCompile(`^duplicate name: an earlier file is called (.+), which differs only in case and is the same file on Windows and macOS$`), engineKey("duplicate name: an earlier file is called %s, which differs only in case and is the same file on Windows and macOS")},
	{regexp.MustCompile(`^name clash: the earlier file (.+) needs a folder with this name$`), engineKey("name clash: the earlier file %s needs a folder with this name")},
	{regexp.MustCompile(`^the destination folder (.+) no longer exists$`), engineKey("the destination folder %s no longer exists")},
	{regexp.MustCompile(`^the destination (.+) is not a folder$`), engineKey("the destination %s is not a folder")},
	{regexp.MustCompile(`^the destination folder (.+) is read-only$`), engineKey("the destination folder %s is read-only")},
	{regexp.MustCompile(`^the disk of (.+) is full$`), engineKey("the disk of %s is full")},
	{regexp.MustCompile(`^(.+): they were kept for the session that added it only, as this system has no keyring; remove job (\d+) and add it again with them$`), engineKey("%s: they were kept for the session that added it only, as this system has no keyring; remove job %s and add it again with them")},
	{regexp.MustCompile(`^the passwords, cookies or headers given for this download are gone$`), engineKey("the passwords, cookies or headers given for this download are gone")},
	// Why a mirror that sent pieces that fail their hash was dropped, or
	// is still used (the engine's finishPiece and strikesWhy).
	{regexp.MustCompile(`^sent (\d+) pieces that fail their (.+) hash \(last: piece (\d+)\)$`), engineKey("sent %s pieces that fail their %s hash (last: piece %s)")},
	{regexp.MustCompile(`^sent (\d+) pieces that fail their (.+) hash; kept: it is the last mirror and sent mostly good pieces$`), engineKey("sent %s pieces that fail their %s hash; kept: it is the last mirror and sent mostly good pieces")},
	{regexp.MustCompile(`^sent (\d+) piece that fails its (.+) hash; every mirror sent it so \(the damage is in the published copies\)$`), engineKey("sent %s piece that fails its %s hash; every mirror sent it so (the damage is in the published copies)")},
	{regexp.MustCompile(`^sent (\d+) pieces that fail their (.+) hash; every mirror sent them so \(the damage is in the published copies\)$`), engineKey("sent %s pieces that fail their %s hash; every mirror sent them so (the damage is in the published copies)")},
	{regexp.MustCompile(`^sent (\d+) piece that fails its (.+) hash; another mirror sent it bad too$`), engineKey("sent %s piece that fails its %s hash; another mirror sent it bad too")},
	{regexp.MustCompile(`^sent (\d+) pieces that fail their (.+) hash; other mirrors sent them bad too$`), engineKey("sent %s pieces that fail their %s hash; other mirrors sent them bad too")},
	{regexp.MustCompile(`^sent (\d+) piece that fails its (.+) hash; still used: a mirror is dropped after (\d+) bad pieces no other mirror sent bad$`), engineKey("sent %s piece that fails its %s hash; still used: a mirror is dropped after %s bad pieces no other mirror sent bad")},
	{regexp.MustCompile(`^sent (\d+) pieces that fail their (.+) hash; still used: a mirror is dropped after (\d+) bad pieces no other mirror sent bad$`), engineKey("sent %s pieces that fail their %s hash; still used: a mirror is dropped after %s bad pieces no other mirror sent bad")},
}

// engineKey marks a translation key that is looked up later, with
// lang.L, when the text is said: the checks of the translations take its
// argument for one.
func engineKey(key string) string { return key }

// engineText is one of the engine's messages (engineRules) in the user's
// language; a message of none of them is left as it is. A value in a
// message that is itself one (the rule an unsafe name breaks) is said so
// too.
func engineText(text string) string {
	key, values, ok := engineRuleOf(text)
	if !ok {
		return text
	}
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = engineText(v)
	}
	return fmt.Sprintf(lang.L(key), args...)
}

// engineRuleOf finds the rule a message of the engine states: its
// translation key and the values in it.
func engineRuleOf(text string) (key string, values []string, ok bool) {
	for _, r := range engineRules {
		if m := r.re.FindStringSubmatch(text); m != nil {
			return r.key, m[1:], true
		}
	}
	return "", nil, false
}

// SignatureText is what a signature's outcome says, in the user's
// language (signature.Outcome.String's facts). The note a check left
// (why a signature is bad or cannot be read) is the engine's detail, kept
// as it is.
func SignatureText(o signature.Outcome) string {
	with := func(s string) string {
		if o.Note == "" {
			return s
		}
		return s + ": " + o.Note
	}
	switch o.Status {
	case signature.Good:
		s := fmt.Sprintf(lang.L("signed by %s (%s)"), o.Signer, o.Fingerprint)
		if o.Note != "" {
			s += "; " + o.Note
		}
		return s
	case signature.UnknownKey:
		return fmt.Sprintf(lang.L("signed by an unknown key %s"), o.Fingerprint)
	case signature.Bad:
		return with(lang.L("BAD signature"))
	case signature.Unreadable:
		if o.Note == "" {
			return lang.L("signature not checked: it cannot be read; judged by its hashes")
		}
		return fmt.Sprintf(lang.L("signature not checked: %s; judged by its hashes"), o.Note)
	}
	return lang.L("signature not checked")
}

// SignatureAdvice is what the user can do about a signature's outcome, in
// their language: for an unknown key, how to import it; "" otherwise.
func SignatureAdvice(o signature.Outcome) string {
	if o.Status != signature.UnknownKey {
		return ""
	}
	return fmt.Sprintf(lang.L("if you trust key %s, import it with: braid keys import KEYFILE|URL (the publisher's key)"), o.Fingerprint)
}
