// Package proxy is the filtering proxy a sandboxed command reaches the
// network through: an HTTP proxy (absolute-form requests, and CONNECT for
// HTTPS and any other TCP) and a SOCKS5 proxy (CONNECT, names resolved by
// the proxy), both deciding every connection by the policy of package
// [egress].
//
// The sandbox runs the command in a network namespace of its own with
// loopback only; the listeners the command connects to are made inside
// that namespace and handed to the picket process outside it (see
// package sandbox), so this package only ever sees connections from the
// command. Both protocols are read here: HTTP/1.1 and 1.0 message heads
// (RFC 9112: the request line, the header fields, the upstream's status
// line; bodies are never parsed) and SOCKS5 (RFC 1928, CONNECT only, no
// authentication). Not importing net/http keeps crypto/tls and its
// start-up work out of every picket process, the per-call hook included.
//
// Each HTTP connection carries one request: picket answers with
// "Connection: close" and sends the request on with it. The request's
// body is passed on as it is framed (Content-Length or chunked) and not
// one byte further, so a request written behind the first on the same
// connection reaches no host, whatever that host does with "close"; a
// framing picket cannot read exactly (both Content-Length and
// Transfer-Encoding, lengths that disagree, another transfer coding) is
// refused with a 400. The answer, and a fixed-length body, move by
// splice(2), as a tunnel's bytes do.
// An https URL sent as a plain request (not through CONNECT) is refused:
// picket does not speak TLS.
//
// # What it guarantees
//
//   - One decision per connection attempt, made by [egress.Policy.Judge]
//     on the name the client sent and then [egress.Policy.Permit] on the
//     addresses the proxy itself resolved that name to. The connection is
//     dialed to one of those permitted addresses, never by name, so the
//     address checked is the address connected to.
//   - Every decision reaches [Options.Audit] once, with the address
//     connected to (or refused), the rule and entry that decided, and
//     whether a person was asked. Nothing of what flows through is read
//     beyond the request line and headers HTTP needs; nothing is logged.
//   - A destination no entry names is put to [Options.Person] when there
//     is one, once per host per command: connections to a host waiting on
//     a prompt wait for its answer, an answer holds for the rest of the
//     command, and from [Options.BatchAfter] unlisted hosts on the prompt
//     lists them all. Without a person, or on any failure to ask, it is
//     refused.
//   - A refused client learns why: an HTTP 403 whose body names the host,
//     the rule and the entry to add; for CONNECT and SOCKS5, the refusal
//     plus one line on [Options.Notice] (the command's stderr), once per
//     host and reason.
//
// # What it does not do
//
//   - It filters by name and address, not by content: an allowed host
//     receives whatever the command sends it. Hosts that serve anyone's
//     content (a code host's raw files, a paste site) are a way out for
//     data; picket lint warns about the common ones.
//   - UDP, ICMP and SOCKS5's BIND and UDP ASSOCIATE are not carried: a
//     program that needs them, or that ignores the proxy variables, has no
//     network at all in the sandbox.
//   - DNS answers are taken as they come; a name that resolves to an
//     address the policy refuses is refused, but a public address that
//     changes hands is not noticed.
package proxy
