package nativehost

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// frame is a message as a browser writes it.
func frame(b []byte) []byte {
	out := binary.NativeEndian.AppendUint32(nil, uint32(len(b)))
	return append(out, b...)
}

// replies reads every message Serve wrote.
func replies(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	r := bytes.NewReader(out)
	var all []map[string]any
	for {
		b, err := ReadMessage(r, MaxFromHost)
		if errors.Is(err, io.EOF) {
			return all
		}
		if err != nil {
			t.Fatalf("read a reply: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("reply %q is not JSON: %v", b, err)
		}
		all = append(all, m)
	}
}

func TestFramingRoundTrip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	msgs := []any{map[string]any{"a": 1}, "é ✓", []int{1, 2, 3}}
	for _, m := range msgs {
		if err := WriteMessage(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	// The length is in the machine's order, as the browsers read it.
	if n := binary.NativeEndian.Uint32(buf.Bytes()[:4]); n != uint32(len(`{"a":1}`)) {
		t.Errorf("first length %d, want %d", n, len(`{"a":1}`))
	}
	for i, want := range []string{`{"a":1}`, `"é ✓"`, `[1,2,3]`} {
		b, err := ReadMessage(&buf, MaxToHost)
		if err != nil || string(b) != want {
			t.Errorf("message %d: %q, %v; want %q", i, b, err, want)
		}
	}
	if _, err := ReadMessage(&buf, MaxToHost); !errors.Is(err, io.EOF) {
		t.Errorf("after the last message: %v, want io.EOF", err)
	}
}

func TestReadMessageLimitsAndCuts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    []byte
		limit int
		want  error
	}{
		{"over the limit", binary.NativeEndian.AppendUint32(nil, 11), 10, ErrTooLarge},
		{"huge length", []byte{0xff, 0xff, 0xff, 0xff}, MaxToHost, ErrTooLarge},
		{"length cut short", []byte{1, 0}, MaxToHost, io.ErrUnexpectedEOF},
		{"body cut short", append(binary.NativeEndian.AppendUint32(nil, 10), "abc"...), MaxToHost, io.ErrUnexpectedEOF},
		{"empty stream", nil, MaxToHost, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadMessage(bytes.NewReader(tt.in), tt.limit)
			if !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
	// At the limit is allowed.
	b, err := ReadMessage(bytes.NewReader(frame([]byte("0123456789"))), 10)
	if err != nil || string(b) != "0123456789" {
		t.Errorf("a message at the limit: %q, %v", b, err)
	}
}

func TestWriteMessageRefusesOverMaxFromHost(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := WriteMessage(&buf, strings.Repeat("x", MaxFromHost))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("err %v, want ErrTooLarge", err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes of a message the browser would refuse", buf.Len())
	}
}

// TestServeBadInput: a message that is not a request gets an answer that
// says why, and the host goes on to the next; nothing here opens a queue.
func TestServeBadInput(t *testing.T) {
	t.Parallel()
	var in bytes.Buffer
	for _, m := range []string{
		`not json`,
		`{"id": 1}`,
		`{"id": 2, "type": "explode"}`,
		`{"id": 3, "type": "add"}`,
		`{"id": 4, "type": "add", "url": "javascript:alert(1)"}`,
		`{"id": 5, "type": "add", "url": "file:///etc/passwd"}`,
		`{"id": 6, "type": "add", "url": "http://"}`,
		`{"id": 7, "type": "ping"}`,
	} {
		in.Write(frame([]byte(m)))
	}
	var out bytes.Buffer
	if err := Serve(context.Background(), &in, &out, Options{StateDir: t.TempDir()}); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got := replies(t, out.Bytes())
	wants := []string{"not a request", `no "type"`, `unknown request type "explode"`, `no "url"`,
		"cannot download javascript: links", "cannot download file: links", "no host"}
	if len(got) != len(wants)+1 {
		t.Fatalf("%d replies, want %d: %v", len(got), len(wants)+1, got)
	}
	for i, want := range wants {
		if got[i]["ok"] != false || !strings.Contains(got[i]["error"].(string), want) {
			t.Errorf("reply %d: %v; want an error with %q", i, got[i], want)
		}
	}
	if got[1]["id"] != float64(1) || got[6]["id"] != float64(6) {
		t.Errorf("replies do not carry their request's id: %v, %v", got[1], got[6])
	}
	if last := got[len(got)-1]; last["ok"] != true || last["version"] != float64(Version) {
		t.Errorf("ping after bad input: %v", last)
	}
}

// TestServeOversizedEnds: a length over the limit cannot be skipped; the
// host answers why and stops with ErrTooLarge.
func TestServeOversizedEnds(t *testing.T) {
	t.Parallel()
	in := append(frame([]byte(`{"type":"ping"}`)), binary.NativeEndian.AppendUint32(nil, MaxToHost+1)...)
	var out bytes.Buffer
	err := Serve(context.Background(), bytes.NewReader(in), &out, Options{StateDir: t.TempDir()})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Serve: %v, want ErrTooLarge", err)
	}
	got := replies(t, out.Bytes())
	if len(got) != 2 || got[0]["ok"] != true || got[1]["ok"] != false || !strings.Contains(got[1]["error"].(string), "too large") {
		t.Errorf("replies %v", got)
	}
}

func TestCaller(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"},
		{[]string{"chrome-extension://abc/", "--parent-window=1234"}, "chrome-extension://abc/"},
		{[]string{"/home/ann/.mozilla/native-messaging-hosts/io.github.braid_dm.braid.json", "braid@braid-dm.github.io"}, "braid@braid-dm.github.io"},
		{nil, ""},
		{[]string{"--help"}, ""},
	}
	for _, tt := range tests {
		if got := Caller(tt.args); got != tt.want {
			t.Errorf("Caller(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// FuzzServe: whatever the browser sends, Serve answers or returns an
// error; it never panics.
func FuzzServe(f *testing.F) {
	f.Add(frame([]byte(`{"type":"ping","id":"x"}`)))
	f.Add(frame([]byte(`{"type":"add","url":"gopher://h/"}`)))
	f.Add(frame([]byte(`{"type":"add","url":"http://h/","cookies":[{"name":1}]}`)))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 1})
	f.Add(frame([]byte(`[]`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		// "list" and a good "add" would open a queue: the fuzzer only
		// reaches the parsing, with a state folder that cannot be made.
		_ = Serve(context.Background(), bytes.NewReader(in), &out, Options{StateDir: "/dev/null/braid", Timeout: 1})
	})
}
