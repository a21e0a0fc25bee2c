package proxy

import "context"

type replyKey struct{}

// withReply carries refusals for part of a batch from the request to its
// response.
func withReply(ctx context.Context, reply []byte) context.Context {
	return context.WithValue(ctx, replyKey{}, reply)
}

func replyFrom(ctx context.Context) []byte {
	b, _ := ctx.Value(replyKey{}).([]byte)
	return b
}
