// Package egress is fence's network section as picket applies it to
// sandboxed commands: which hosts a command may connect to, judged by name
// and then by the addresses the name resolves to. It is pure: [Policy]
// is plain values, [Policy.Judge] and [Policy.Permit] decide without the
// network, and the server that applies them is package egress/proxy.
//
// # Semantics
//
// Read from fence's own code and docs; where they leave a case open, the
// stricter reading:
//
//   - allowedDomains and deniedDomains hold [Entry] values: "example.com"
//     (that name only), "*.example.com" (every name below it, not
//     example.com itself), "*" (every name), "localhost", an IP address,
//     and any of these with a ":port" suffix (Claude Code's sandbox form;
//     without one an entry matches every port). Names are compared without
//     regard to case and a trailing dot. An entry that names no host is an
//     error when the policy loads.
//   - A deny entry wins over every allow entry, whatever the order or the
//     port; "*" in deniedDomains denies addresses too.
//   - An IP address a client asks for is allowed only by an entry that is
//     that address: "*" names every domain name and no address.
//   - The addresses a name resolves to are judged too ([Policy.Permit]):
//     one a deny entry names is refused, and so is a loopback, private,
//     unique-local, link-local (cloud metadata at 169.254.169.254) or
//     other non-public one ([ClassOf]), unless an allowedDomains entry is
//     that address, or, for loopback, private and unique-local,
//     allowLocalOutbound is on (unset, it takes allowLocalBinding's
//     value, as in fence). An IPv6 address carrying an IPv4 one (mapped,
//     NAT64, 6to4) is judged by the IPv4 address.
//   - A host no entry names is Unlisted: the proxy asks a person, or,
//     with defaultAction "proxy", hands it to upstreamProxy (http://
//     only, as in fence); otherwise it is refused.
//
// # What it does not stop
//
//   - Content: an allowed host receives whatever a command sends it.
//     "*" and hosts that serve anyone's content are a way out for data;
//     picket lint warns about both.
//   - A host whose public address serves more than the name suggests
//     (shared CDNs, virtual hosts): the proxy judges the name the client
//     sent and the address it connects to, not what answers there.
//   - Names are ASCII: an internationalized name is written in its xn--
//     form, as clients send it.
package egress
