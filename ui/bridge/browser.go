package bridge

import (
	"context"

	"braid/nativehost"
	"braid/platform"
)

// TakeLink adds a link the browser handed over through the native host
// (the user's socket): the window reads it with the browser's cookies and
// keeps them for its session, so its runner, woken at once, sends them.
// A link for another state folder's queue, or a queue this window does
// not run, is refused with platform.ErrElsewhere: the host adds it
// itself.
func (b *Backend) TakeLink(ctx context.Context, l platform.Link) (platform.Answer, error) {
	return nativehost.Take(ctx, b.q, l, nativehost.AddOptions{Wake: b.Wake})
}
