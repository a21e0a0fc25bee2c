package proxy

import "context"

// httpCall is what a proxied HTTP request carries from the client's side
// to the upstream's response: the route its ids were recorded under, and
// the refusals for part of a batch, which join the response.
type httpCall struct {
	route route
	reply []byte
}

type callKey struct{}

func withCall(ctx context.Context, c *httpCall) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

func callFrom(ctx context.Context) *httpCall {
	c, _ := ctx.Value(callKey{}).(*httpCall)
	return c
}
