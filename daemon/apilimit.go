package daemon

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

// APILimits bound what one local user can make the daemon hold. Zero values
// mean the defaults noted. Root and the daemon's own user get the trusted
// limits, everyone else (with --all-users) the per-user ones, so that a
// flood from one account neither starves the daemon of descriptors nor
// locks the administrator out.
type APILimits struct {
	// Conns and Streams are each other user's concurrent connections
	// (default 16) and event streams (GET /v1/events?follow=1, default 4).
	Conns, Streams int
	// TrustedConns and TrustedStreams are root's and the daemon user's
	// (default 256 and 64).
	TrustedConns, TrustedStreams int
	// Total bounds the connections of all other users together (default
	// 512); the trusted ones are counted apart.
	Total int
	// HeaderTimeout is how long a connection may take to send a request's
	// headers (default 10s); IdleTimeout how long a kept-alive connection
	// may wait for its next request (default 60s); WriteTimeout how long
	// a peer may take to read an answer, or an event of a stream (default
	// 30s).
	HeaderTimeout, IdleTimeout, WriteTimeout time.Duration
	// MaxHeaderBytes bounds a request's headers (default 8 KiB). Requests
	// carry no body: one that has one is refused.
	MaxHeaderBytes int
	// Remember is how long a refusal keeps the status degraded
	// (api-limit), default 10 minutes.
	Remember time.Duration
}

func (l APILimits) withDefaults() APILimits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Conns, 16)
	def(&l.Streams, 4)
	def(&l.TrustedConns, 256)
	def(&l.TrustedStreams, 64)
	def(&l.Total, 512)
	def(&l.MaxHeaderBytes, 8<<10)
	defDur(&l.HeaderTimeout, 10*time.Second)
	defDur(&l.IdleTimeout, 60*time.Second)
	defDur(&l.WriteTimeout, 30*time.Second)
	defDur(&l.Remember, 10*time.Minute)
	return l
}

// apiLimiter counts connections and streams per peer uid.
type apiLimiter struct {
	lim  APILimits
	euid int
	now  func() time.Time

	mu              sync.Mutex
	conns, streams  map[int]int
	untrusted       int
	refused         int64
	lastRefused     time.Time
	lastRefusedWhat string
	refusedUIDs     map[int]int64
	// answering counts the goroutines answering refused connections, per
	// uid and in all (answeringAll).
	answering    map[int]int
	answeringAll int
}

// Bounds of the goroutines that answer refused connections: per uid, in
// all, and how long each waits for the request it answers.
const (
	answerPerUID = 8
	answerTotal  = 128
	answerWait   = 250 * time.Millisecond
)

func newAPILimiter(lim APILimits, now func() time.Time) *apiLimiter {
	return &apiLimiter{lim: lim.withDefaults(), euid: os.Geteuid(), now: now, conns: map[int]int{}, streams: map[int]int{},
		refusedUIDs: map[int]int64{}, answering: map[int]int{}}
}

// uidKey is the key of a peer: its uid, or -1 where the OS does not say.
func uidKey(p peer) int {
	if !p.known {
		return -1
	}
	return p.uid
}

func (a *apiLimiter) trusted(uid int) bool { return uid == 0 || uid == a.euid }

// acquireConn counts a new connection of p, or says why it is refused.
func (a *apiLimiter) acquireConn(p peer) (ok bool, why string) {
	uid := uidKey(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	limit := a.lim.Conns
	if a.trusted(uid) {
		limit = a.lim.TrustedConns
	} else if a.untrusted >= a.lim.Total {
		return false, a.refuse(uid, fmt.Sprintf("the daemon holds %d connections of other users, its limit", a.lim.Total))
	}
	if a.conns[uid] >= limit {
		return false, a.refuse(uid, fmt.Sprintf("%s has %d connections open, the limit per user", describePeer(uid), limit))
	}
	a.conns[uid]++
	if !a.trusted(uid) {
		a.untrusted++
	}
	return true, ""
}

func (a *apiLimiter) releaseConn(p peer) {
	uid := uidKey(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conns[uid]--; a.conns[uid] <= 0 {
		delete(a.conns, uid)
	}
	if !a.trusted(uid) {
		a.untrusted--
	}
}

// acquireStream counts an event stream of p, or says why it is refused.
func (a *apiLimiter) acquireStream(p peer) (ok bool, why string) {
	uid := uidKey(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	limit := a.lim.Streams
	if a.trusted(uid) {
		limit = a.lim.TrustedStreams
	}
	if a.streams[uid] >= limit {
		return false, a.refuse(uid, fmt.Sprintf("%s follows %d event streams, the limit per user", describePeer(uid), limit))
	}
	a.streams[uid]++
	return true, ""
}

func (a *apiLimiter) releaseStream(p peer) {
	uid := uidKey(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.streams[uid]--; a.streams[uid] <= 0 {
		delete(a.streams, uid)
	}
}

// refuse records a refusal (mu held) and returns what to tell the peer.
func (a *apiLimiter) refuse(uid int, what string) string {
	a.refused++
	a.lastRefused, a.lastRefusedWhat = a.now(), what
	if len(a.refusedUIDs) < 64 || a.refusedUIDs[uid] > 0 {
		a.refusedUIDs[uid]++
	}
	return what + "; close some and try again"
}

func describePeer(uid int) string {
	if uid < 0 {
		return "a peer of unknown uid"
	}
	return "uid " + strconv.Itoa(uid)
}

// APIStatus is what the API holds and what it refused (Status.API).
type APIStatus struct {
	Connections int   `json:"connections"`
	Streams     int   `json:"streams"`
	Refused     int64 `json:"refused"`
	// LastRefusedAt and LastRefused say when and why the API last refused a
	// connection or stream.
	LastRefusedAt string `json:"last_refused_at,omitempty"`
	LastRefused   string `json:"last_refused,omitempty"`
	// RefusedUIDs lists the uids refused, with how often.
	RefusedUIDs map[string]int64 `json:"refused_uids,omitempty"`
	// Limits are the per-user limits in force.
	Limits APILimitsStatus `json:"limits"`
}

// APILimitsStatus are the limits as the status shows them.
type APILimitsStatus struct {
	Conns          int `json:"connections_per_user"`
	Streams        int `json:"streams_per_user"`
	TrustedConns   int `json:"connections_root"`
	TrustedStreams int `json:"streams_root"`
	IdleSeconds    int `json:"idle_seconds"`
}

// status reports the counts, and a degradation while a refusal is recent.
func (a *apiLimiter) status() (APIStatus, *Degraded) {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := APIStatus{Refused: a.refused, Limits: APILimitsStatus{Conns: a.lim.Conns, Streams: a.lim.Streams,
		TrustedConns: a.lim.TrustedConns, TrustedStreams: a.lim.TrustedStreams, IdleSeconds: int(a.lim.IdleTimeout.Seconds())}}
	for _, n := range a.conns {
		st.Connections += n
	}
	for _, n := range a.streams {
		st.Streams += n
	}
	if a.refused == 0 {
		return st, nil
	}
	st.LastRefusedAt = a.lastRefused.UTC().Format(time.RFC3339)
	st.LastRefused = a.lastRefusedWhat
	st.RefusedUIDs = map[string]int64{}
	uids := make([]int, 0, len(a.refusedUIDs))
	for uid, n := range a.refusedUIDs {
		st.RefusedUIDs[strconv.Itoa(uid)] = n
		uids = append(uids, uid)
	}
	sort.Ints(uids)
	if a.now().Sub(a.lastRefused) > a.lim.Remember {
		return st, nil
	}
	return st, &Degraded{Kind: "api-limit", Message: fmt.Sprintf("the API refused %d connections or event streams over its per-user limits (uids %v), the last at %s: %s",
		a.refused, uids, st.LastRefusedAt, a.lastRefusedWhat)}
}

// limitListener counts each accepted connection against its peer's limit
// and answers the ones over it with 429 Too Many Requests.
type limitListener struct {
	net.Listener
	lim *apiLimiter
}

// limitedConn is an accepted connection with its peer; Close releases it.
type limitedConn struct {
	net.Conn
	peer peer
	once sync.Once
	lim  *apiLimiter
}

func (c *limitedConn) Close() error {
	c.once.Do(func() { c.lim.releaseConn(c.peer) })
	return c.Conn.Close()
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		p, ok := peerOf(c)
		p.known = ok
		if ok, why := l.lim.acquireConn(p); !ok {
			l.lim.turnAway(c, uidKey(p), why)
			continue
		}
		return &limitedConn{Conn: c, peer: p, lim: l.lim}, nil
	}
}

// turnAway answers a refused connection once it has sent its request's
// headers (a client still writing would not read an answer sent before),
// within answerWait, then closes it. Beyond a few answers at once per user
// the connection is closed unanswered: a flood gets no goroutine each.
func (a *apiLimiter) turnAway(c net.Conn, uid int, why string) {
	a.mu.Lock()
	ok := a.answering[uid] < answerPerUID && a.answeringAll < answerTotal
	if ok {
		a.answering[uid]++
		a.answeringAll++
	}
	a.mu.Unlock()
	if !ok {
		c.Close()
		return
	}
	go func() {
		defer func() {
			a.mu.Lock()
			if a.answering[uid]--; a.answering[uid] <= 0 {
				delete(a.answering, uid)
			}
			a.answeringAll--
			a.mu.Unlock()
		}()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(answerWait))
		br := bufio.NewReaderSize(c, 4096)
		for n := 0; n < 64; n++ { // headers: up to 64 lines
			line, err := br.ReadSlice('\n')
			if err != nil || len(bytes.TrimSpace(line)) == 0 {
				break
			}
		}
		body := "mcpguard daemon: " + why + "\n"
		fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
			http.StatusTooManyRequests, http.StatusText(http.StatusTooManyRequests), len(body), body)
	}()
}
