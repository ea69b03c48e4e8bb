package nativehost

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The browsers' limits on one message
// (developer.chrome.com/docs/extensions/develop/concepts/native-messaging,
// MDN "Native messaging").
const (
	// MaxFromHost is the most a host may send in one message: 1 MiB.
	MaxFromHost = 1 << 20
	// MaxToHost is the most a browser sends in one message; Chrome's
	// limit is 64 MiB.
	MaxToHost = 64 << 20
)

// ErrTooLarge: a message's length is over the limit of its direction.
var ErrTooLarge = errors.New("native message too large")

// ReadMessage reads one message: a 4-byte length in the machine's byte
// order, then that many bytes of JSON (not checked here). It returns
// io.EOF when r ends cleanly before a message, and io.ErrUnexpectedEOF
// when it ends inside one.
func ReadMessage(r io.Reader, limit int) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("read a message's length: %w", err)
		}
		return nil, err // io.EOF: the browser closed the pipe
	}
	n := binary.NativeEndian.Uint32(head[:])
	if uint64(n) > uint64(limit) {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, n, limit)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read a message of %d bytes: %w", n, err)
	}
	return b, nil
}

// WriteMessage writes v as one message in JSON: its length in the
// machine's byte order, then the JSON. A message over MaxFromHost is not
// written: the browser would close the connection.
func WriteMessage(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode a message: %w", err)
	}
	if len(b) > MaxFromHost {
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(b), MaxFromHost)
	}
	msg := make([]byte, 4+len(b))
	binary.NativeEndian.PutUint32(msg, uint32(len(b)))
	copy(msg[4:], b)
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("write a message: %w", err)
	}
	return nil
}
