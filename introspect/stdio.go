package introspect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/mcpio"
)

// stdioConn talks to a server process over its stdin and stdout.
type stdioConn struct {
	child  *mcpio.Child
	frames chan []byte
	// readErr is set before frames is closed: why the output ended.
	readErr error
	grace   time.Duration
	parent  context.Context // the scan's context: cancelled, shutdown is at once
	wmu     sync.Mutex
	reader  sync.WaitGroup
}

// errOutputLimit reports a server that wrote more than the output cap.
var errOutputLimit = errors.New("output limit")

// startStdio starts the server process. Its environment is base plus the
// target's variables; stderr is discarded (it may print secrets).
func startStdio(parent context.Context, t *target, base []string, maxOutput int64, grace time.Duration) (*stdioConn, error) {
	env := mergeEnv(base, t.env)
	child, err := mcpio.StartChild(mcpio.ChildOptions{Argv: t.argv, Env: env, Dir: t.dir})
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", pe.Path, pe.Err)
		}
		return nil, err
	}
	c := &stdioConn{child: child, frames: make(chan []byte, 16), grace: grace, parent: parent}
	c.reader.Add(1)
	go c.read(maxOutput)
	return c, nil
}

// read forwards the server's output frames until it ends or passes the
// output cap.
func (c *stdioConn) read(maxOutput int64) {
	defer c.reader.Done()
	defer close(c.frames)
	fr := mcpio.NewFrameReader(c.child.Stdout(), int(maxOutput))
	var total int64
	for {
		frame, err := fr.Next()
		if err != nil {
			if errors.Is(err, mcpio.ErrFrameTooLarge) {
				err = errOutputLimit
			}
			c.readErr = err
			return
		}
		total += int64(len(frame))
		if total > maxOutput {
			c.readErr = errOutputLimit
			return
		}
		if len(bytes.TrimSpace(frame)) == 0 {
			continue
		}
		c.frames <- bytes.Clone(frame)
	}
}

func (c *stdioConn) send(ctx context.Context, msg []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := c.child.Stdin().Write(append(msg, '\n'))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return c.exited("reading its input")
		}
		return nil
	case <-ctx.Done():
		// A server that does not read its stdin: the write stays blocked
		// until close kills the process and the pipe breaks.
		return ctx.Err()
	}
}

func (c *stdioConn) next(ctx context.Context) ([]byte, error) {
	select {
	case f, ok := <-c.frames:
		if !ok {
			if errors.Is(c.readErr, errOutputLimit) {
				return nil, errOutputLimit
			}
			return nil, c.exited("answering")
		}
		return f, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// exited describes a server whose pipes closed: with its exit status when
// it has exited.
func (c *stdioConn) exited(doing string) error {
	if c.child.WaitFor(500 * time.Millisecond) {
		return fmt.Errorf("the server exited with status %d before %s", c.child.ExitCode(), doing)
	}
	return fmt.Errorf("the server closed its output before %s", doing)
}

// close shuts the server down as the MCP specification prescribes (close
// stdin, SIGTERM, SIGKILL), then kills whatever is left of its process
// group, so that no grandchild outlives the scan.
func (c *stdioConn) close(context.Context) {
	c.child.Shutdown(c.parent, c.grace)
	c.child.KillGroup()
	// A process that left the group (setsid) may still hold the pipe: stop
	// reading it.
	c.child.Stdout().Close()
	go func() {
		for range c.frames {
		}
	}()
	c.reader.Wait()
}

// mergeEnv returns base with vars set (replacing earlier values).
func mergeEnv(base []string, vars map[string]string) []string {
	out := make([]string, 0, len(base)+len(vars))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := vars[k]; ok {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}
