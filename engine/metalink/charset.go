package metalink

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// toUTF8 returns the document as UTF-8. A byte order mark decides first
// (UTF-8, UTF-16 BE or LE); a UTF-16 document without one is recognised by
// its "<?" in two-byte form. Otherwise the encoding named in the XML
// declaration is used, looked up with the WHATWG names of htmlindex
// (ISO-8859-1, windows-1252, Shift_JIS, ...). No declaration means UTF-8.
func toUTF8(data []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:], nil
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), bytes.HasPrefix(data, []byte{0, '<', 0, '?'}):
		return fromUTF16(data, unicode.BigEndian)
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{'<', 0, '?', 0}):
		return fromUTF16(data, unicode.LittleEndian)
	}
	label := declaredEncoding(data)
	switch l := strings.ToLower(label); {
	case l == "" || l == "utf-8" || l == "utf8":
		return data, nil
	case strings.HasPrefix(l, "utf-16") || strings.HasPrefix(l, "ucs-2") || l == "unicode":
		// The declaration was readable one byte per character, so the
		// bytes are not UTF-16 whatever it claims; read them as UTF-8.
		return data, nil
	}
	enc, err := htmlindex.Get(label)
	if err != nil {
		return nil, &SyntaxError{Line: 1, Msg: fmt.Sprintf("the XML declaration names the character encoding %q, which Braid does not know", label), Err: ErrEncoding}
	}
	if name, _ := htmlindex.Name(enc); name == "utf-8" {
		return data, nil
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), data)
	if err != nil {
		return nil, &SyntaxError{Line: 1, Msg: fmt.Sprintf("the document is not valid %s: %v", label, err), Err: ErrEncoding}
	}
	return out, nil
}

func fromUTF16(data []byte, order unicode.Endianness) ([]byte, error) {
	out, _, err := transform.Bytes(unicode.UTF16(order, unicode.UseBOM).NewDecoder(), data)
	if err != nil {
		return nil, &SyntaxError{Line: 1, Msg: fmt.Sprintf("the document is not valid UTF-16: %v", err), Err: ErrEncoding}
	}
	return out, nil
}

// declaredEncoding returns the encoding="..." of an XML declaration at the
// start of data, or "".
func declaredEncoding(data []byte) string {
	data = bytes.TrimLeft(data, " \t\r\n")
	if !bytes.HasPrefix(data, []byte("<?xml")) {
		return ""
	}
	end := bytes.Index(data, []byte("?>"))
	if end < 0 || end > 1024 {
		return ""
	}
	decl := data[len("<?xml"):end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	n := bytes.IndexByte(rest[1:], rest[0])
	if n < 0 {
		return ""
	}
	return strings.TrimSpace(string(rest[1 : 1+n]))
}
