package daemon_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/daemon"
	"github.com/mcpguard/mcpguard/internal/events"
)

// namespace is a mount namespace for the daemon: the machine's files
// stay as they are for everyone else.
type namespace struct {
	// passwd is bind-mounted on /etc/passwd, home on /home, when set.
	passwd, home string
	// userdb holds systemd user records (NAME.user) served from
	// /run/userdb (on a tmpfs over /run): accounts the OS's user database
	// knows (nss-systemd) and /etc/passwd does not, as LDAP's or SSSD's.
	userdb string
}

func (n *namespace) wrap(argv []string) []string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := "set -e; "
	if n.passwd != "" {
		script += "mount --bind " + q(n.passwd) + " /etc/passwd; "
	}
	if n.home != "" {
		script += "mount --bind " + q(n.home) + " /home; "
	}
	if n.userdb != "" {
		script += "mount -t tmpfs -o mode=0755 tmpfs /run; mkdir /run/userdb; cp -a " + q(n.userdb) + "/* /run/userdb/; "
	}
	script += `exec "$@"`
	return append([]string{"unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"}, argv...)
}

// runHelper is the test binary run as a helper process (by another user):
//
//	events: print the daemon's events (MCPGUARD_TEST_SOCKET) as JSON lines
//	flood:  hold MCPGUARD_TEST_FOLLOWS event streams and MCPGUARD_TEST_IDLE
//	        silent connections for MCPGUARD_TEST_HOLD, then print what the
//	        daemon answered ("streams=N refused=N failed=N")
func runHelper(mode string) int {
	socket := os.Getenv("MCPGUARD_TEST_SOCKET")
	switch mode {
	case "events":
		c := daemon.NewClient(socket)
		if _, err := c.Events(context.Background(), 0, false, func(_ events.Event, raw []byte) error {
			_, err := os.Stdout.Write(append(raw, '\n'))
			return err
		}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		return 0
	case "flood":
		follows, _ := strconv.Atoi(os.Getenv("MCPGUARD_TEST_FOLLOWS"))
		idle, _ := strconv.Atoi(os.Getenv("MCPGUARD_TEST_IDLE"))
		hold, _ := time.ParseDuration(os.Getenv("MCPGUARD_TEST_HOLD"))
		var mu sync.Mutex
		counts := map[string]int{}
		var conns []net.Conn
		count := func(k string, c net.Conn) {
			mu.Lock()
			counts[k]++
			if c != nil {
				conns = append(conns, c)
			}
			mu.Unlock()
		}
		var wg sync.WaitGroup
		for i := 0; i < follows; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.DialTimeout("unix", socket, 5*time.Second)
				if err != nil {
					count("failed", nil)
					return
				}
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				fmt.Fprintf(c, "GET /v1/events?since=0&follow=1 HTTP/1.1\r\nHost: mcpguard\r\n\r\n")
				line, _ := bufio.NewReader(c).ReadString('\n')
				_ = c.SetDeadline(time.Time{})
				switch {
				case strings.Contains(line, " 200 "):
					count("streams", c)
				case strings.Contains(line, " 429 "):
					count("refused", nil)
					c.Close()
				default:
					count("failed", nil)
					c.Close()
				}
			}()
		}
		// The silent connections come after the streams have been asked
		// for: dialled first, they would take every connection slot and
		// every answer the daemon gives a refused burst, and the follows
		// would all be closed unanswered (a loaded machine runs this loop
		// before the follows' goroutines).
		wg.Wait()
		for i := 0; i < idle; i++ {
			if c, err := net.DialTimeout("unix", socket, 5*time.Second); err == nil {
				count("idle", c)
			} else {
				count("failed", nil)
			}
		}
		fmt.Printf("streams=%d refused=%d failed=%d idle=%d\n", counts["streams"], counts["refused"], counts["failed"], counts["idle"])
		os.Stdout.Sync()
		// Hold everything (reading what the daemon sends) until told to
		// stop or for hold at most.
		done := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
		for _, c := range conns {
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
		select {
		case <-done:
		case <-time.After(hold):
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper", mode)
	return 2
}
