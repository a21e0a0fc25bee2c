package proxy

import (
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
)

// ListenerOptions say who may use the Streamable HTTP listener. The
// listener is on the user's machine and carries the user's access to the
// upstream: a web page the user visits can reach it too, through DNS
// rebinding (a name of the attacker's that resolves to 127.0.0.1, so the
// browser sends Host: evil.example) or a "simple" cross-origin POST
// (text/plain, no CORS preflight). The MCP specification requires servers
// to validate Origin for exactly this; the proxy is the server its client
// talks to.
type ListenerOptions struct {
	// Listen is the address the listener is bound to (host:port). A
	// request's Host must name it, or localhost, 127.0.0.1 or [::1] with
	// its port. Empty (tests): any loopback name, any port.
	Listen string
	// AllowOrigins are the origins (scheme://host[:port]) whose requests
	// are accepted when the request has an Origin header; none by default,
	// so no web page can call the upstream.
	AllowOrigins []string
	// Token, when set, must be presented by the client as
	// "Authorization: Bearer TOKEN" (--listen-token): on a shared machine
	// another local user can reach a loopback port too. The header is the
	// proxy's and is never forwarded.
	Token string
	// ForwardCredentials passes the client's Authorization and Cookie
	// headers to the upstream, and the upstream's Set-Cookie back. Off, the
	// upstream never sees a credential a caller of the listener brought.
	ForwardCredentials bool
}

// refusal is why the listener turned a request away.
type refusal struct {
	status int
	reason string // host, origin, token, content-type, accept
	msg    string
}

// admit checks a request before anything of it is read or forwarded.
func (h *httpProxy) admit(req *http.Request) *refusal {
	lo := h.listener
	if !hostAllowed(req.Host, lo.Listen) {
		return &refusal{http.StatusMisdirectedRequest, "host", "the Host header does not name this proxy's listen address"}
	}
	origin := req.Header.Get("Origin")
	if origin != "" && !h.originAllowed(origin) {
		return &refusal{http.StatusForbidden, "origin", "requests from this origin are not allowed (--allow-origin)"}
	}
	if origin == "" {
		// A browser sends no Origin on a no-cors GET or a navigation, but
		// says where the request comes from: a page of another site.
		// (Clients other than browsers send no Sec-Fetch-* at all.)
		site := strings.ToLower(req.Header.Get("Sec-Fetch-Site"))
		mode := strings.ToLower(req.Header.Get("Sec-Fetch-Mode"))
		if (site != "" && site != "none" && site != "same-origin") || mode == "no-cors" || mode == "navigate" {
			return &refusal{http.StatusForbidden, "fetch-site", "requests from web pages are not allowed (Sec-Fetch-Site " + clip(site) + ", Sec-Fetch-Mode " + clip(mode) + ")"}
		}
	}
	if req.Method == http.MethodOptions && origin != "" && req.Header.Get("Access-Control-Request-Method") != "" {
		// The CORS preflight of an allowed origin (it carries no
		// credentials, and reaches nothing upstream): ServeHTTP answers it.
		return nil
	}
	if lo.Token != "" {
		got, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(lo.Token)) != 1 {
			return &refusal{http.StatusForbidden, "token", "the listen token is missing or wrong (--listen-token)"}
		}
	}
	accept := strings.ToLower(strings.Join(req.Header.Values("Accept"), ","))
	switch req.Method {
	case http.MethodPost:
		mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			return &refusal{http.StatusUnsupportedMediaType, "content-type", "a POST body must be application/json"}
		}
		if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
			return &refusal{http.StatusNotAcceptable, "accept", "a POST must accept application/json and text/event-stream"}
		}
	case http.MethodGet:
		if !strings.Contains(accept, "text/event-stream") {
			return &refusal{http.StatusNotAcceptable, "accept", "a GET must accept text/event-stream"}
		}
	case http.MethodDelete:
	default:
		return &refusal{http.StatusMethodNotAllowed, "method", "the transport has POST, GET and DELETE only"}
	}
	return nil
}

// refuse answers a request the listener turned away, with an event.
func (h *httpProxy) refuse(w http.ResponseWriter, req *http.Request, rf *refusal) {
	details := map[string]any{"status": rf.status, "reason": rf.reason, "method": req.Method, "host": clip(req.Host)}
	if o := req.Header.Get("Origin"); o != "" {
		details["origin"] = clip(o)
	}
	if ct := req.Header.Get("Content-Type"); ct != "" && rf.reason == "content-type" {
		details["content_type"] = clip(ct)
	}
	kind := rf.reason + "\x00" + req.Method + "\x00" + clip(req.Host) + "\x00" + clip(req.Header.Get("Origin"))
	if ct, ok := details["content_type"].(string); ok {
		kind += "\x00" + ct
	}
	if n, ok := h.refusals.admit(kind, time.Now()); ok {
		if n > 0 {
			details["suppressed"] = n
		}
		h.relay.opts.Events.Emit(events.Event{Kind: "http-refused", Severity: "error", Details: details,
			Message: "refused an HTTP request: " + rf.msg})
		h.relay.opts.Logger.Warn("HTTP request refused", "status", rf.status, "reason", rf.reason, "host", clip(req.Host), "origin", clip(req.Header.Get("Origin")), "suppressed", n)
	}
	http.Error(w, "mcpguard: "+rf.msg, rf.status)
}

// preflight answers the CORS preflight of an allowed origin, so a browser
// client on it (--allow-origin) can POST JSON and read the session id.
func preflight(w http.ResponseWriter, req *http.Request) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", req.Header.Get("Origin"))
	hd.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
	hd.Set("Access-Control-Allow-Headers", corsHeaders)
	hd.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
	hd.Set("Access-Control-Max-Age", "600")
	hd.Add("Vary", "Origin")
	w.WriteHeader(http.StatusNoContent)
}

// corsHeaders are the request headers of the transport a browser client
// sends.
const corsHeaders = "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id, Mcp-Method, Mcp-Name"

// Refusals are reported once per kind (reason, method, Host, Origin,
// Content-Type) per
// refusalInterval, with the number left out since: any web page the user
// has open can send refused requests in a loop, and must not fill the
// events file and stderr.
const (
	refusalInterval = time.Minute
	maxRefusalKinds = 256
)

type refusalLimiter struct {
	mu    sync.Mutex
	kinds map[string]*refusalKind
}

type refusalKind struct {
	last       time.Time
	suppressed int
}

// admit reports whether a refusal of this kind is reported now, and how
// many were left out before it.
func (l *refusalLimiter) admit(kind string, now time.Time) (suppressed int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kinds == nil {
		l.kinds = map[string]*refusalKind{}
	}
	k := l.kinds[kind]
	if k == nil {
		if len(l.kinds) >= maxRefusalKinds {
			for key, old := range l.kinds { // forget the kinds that are quiet
				if now.Sub(old.last) >= refusalInterval {
					delete(l.kinds, key)
				}
			}
		}
		if len(l.kinds) >= maxRefusalKinds {
			kind = "\x00overflow" // every kind beyond the bound shares one report
			if k = l.kinds[kind]; k == nil {
				k = &refusalKind{}
				l.kinds[kind] = k
			}
		} else {
			k = &refusalKind{}
			l.kinds[kind] = k
		}
		if k.last.IsZero() {
			k.last = now
			return 0, true
		}
	}
	if now.Sub(k.last) < refusalInterval {
		k.suppressed++
		return 0, false
	}
	n := k.suppressed
	k.last, k.suppressed = now, 0
	return n, true
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// loopbackNames are the names of this machine that no DNS answer can
// give another meaning.
var loopbackNames = [...]string{"localhost", "127.0.0.1", "::1"}

// hostAllowed reports whether a Host header names the listener: its own
// host, or a loopback name, with its port. A listener bound to every
// address (0.0.0.0, [::]) takes any IP address with its port: DNS
// rebinding needs a name.
func hostAllowed(hostHeader, listen string) bool {
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil {
		host, port = strings.Trim(hostHeader, "[]"), ""
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return false
	}
	lhost, lport, err := net.SplitHostPort(listen)
	if err != nil {
		lhost, lport = "", ""
	}
	if lport != "" && port != lport && !(port == "" && lport == "80") {
		return false
	}
	for _, n := range loopbackNames {
		if host == n {
			return true
		}
	}
	if lhost != "" && strings.EqualFold(host, strings.Trim(lhost, "[]")) {
		return true
	}
	if ip := net.ParseIP(lhost); ip != nil && ip.IsUnspecified() {
		return net.ParseIP(host) != nil
	}
	return false
}

// originAllowed compares an Origin header with the allowed origins, scheme
// and host without regard to case. The listener's own origin
// (http://localhost:PORT and the other names hostAllowed takes, with the
// listen port) is allowed too: no page can come from it, since the proxy
// serves none — a navigation does not accept text/event-stream and gets
// 406. Without a known listen port there is no own origin.
func (h *httpProxy) originAllowed(origin string) bool {
	if u, err := url.Parse(origin); err == nil && u.Scheme == "http" && u.Path == "" && u.RawQuery == "" && u.User == nil {
		lhost, lport, err := net.SplitHostPort(h.listener.Listen)
		name := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		self := name == strings.ToLower(lhost) && net.ParseIP(lhost) != nil && !net.ParseIP(lhost).IsUnspecified()
		for _, n := range loopbackNames {
			self = self || name == n
		}
		// Not any address of a listener on 0.0.0.0: a page of another
		// machine's server on the same port would pass.
		if err == nil && lport != "" && u.Port() == lport && self {
			return true
		}
	}
	o := strings.ToLower(strings.TrimSuffix(origin, "/"))
	for _, a := range h.listener.AllowOrigins {
		if o == strings.ToLower(strings.TrimSuffix(a, "/")) {
			return true
		}
	}
	return false
}

// credentialHeaders are the caller's credentials: they reach the upstream
// only with ListenerOptions.ForwardCredentials.
var credentialHeaders = [...]string{"Authorization", "Cookie", "Proxy-Authorization"}
