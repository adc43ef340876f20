package release

import "context"

// Tick runs one tick of h on in, as Handle does up to TicksPerInvocation
// times per invocation.
func (h *Handler) Tick(ctx context.Context, in Input) (Output, error) { return h.tick(ctx, in) }
