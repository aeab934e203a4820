package egress

import "net/netip"

// Class is what kind of network an address belongs to, as far as egress
// is concerned. ClassPublic is everything that is not one of the others.
type Class string

// The address classes. Every class but ClassPublic reaches this machine,
// its network or its cloud's metadata service, not the internet.
const (
	ClassPublic      Class = ""
	ClassLoopback    Class = "loopback"     // 127.0.0.0/8, ::1, and 0.0.0.0/8 and ::, which connect to this host
	ClassPrivate     Class = "private"      // 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT)
	ClassUniqueLocal Class = "unique-local" // fc00::/7 and the deprecated site-local fec0::/10
	ClassLinkLocal   Class = "link-local"   // 169.254/16 (cloud metadata at 169.254.169.254), fe80::/10
	ClassOther       Class = "not unicast"  // multicast, broadcast, 240/4: no TCP peer out there
)

var (
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNet     = netip.MustParsePrefix("0.0.0.0/8")
	reserved4   = netip.MustParsePrefix("240.0.0.0/4")
	siteLocal   = netip.MustParsePrefix("fec0::/10")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour   = netip.MustParsePrefix("2002::/16")
	v4Compat    = netip.MustParsePrefix("::/96")
	broadcast4  = netip.MustParseAddr("255.255.255.255")
	unspecified = netip.IPv6Unspecified()
)

// ClassOf classifies a. An IPv6 address that carries an IPv4 one (mapped
// "::ffff:a.b.c.d", NAT64 "64:ff9b::a.b.c.d", 6to4 "2002:AABB:CCDD::",
// the old IPv4-compatible "::a.b.c.d") is classified by that IPv4
// address, since that is where a gateway delivers it. It is pure.
func ClassOf(a netip.Addr) Class {
	a = a.Unmap()
	if a.Is6() {
		if v4, ok := embedded4(a); ok {
			if c := ClassOf(v4); c != ClassPublic {
				return c
			}
		}
	}
	switch {
	case !a.IsValid():
		return ClassOther
	case a.IsLoopback(), a.IsUnspecified(), a == unspecified, thisNet.Contains(a):
		return ClassLoopback
	case a.IsLinkLocalUnicast():
		return ClassLinkLocal
	case a.IsMulticast(), a == broadcast4, reserved4.Contains(a):
		return ClassOther
	case a.Is4() && (a.IsPrivate() || cgnat.Contains(a)):
		return ClassPrivate
	case a.IsPrivate(), siteLocal.Contains(a):
		return ClassUniqueLocal
	}
	return ClassPublic
}

// embedded4 returns the IPv4 address an IPv6 one carries by one of the
// translation schemes ClassOf names.
func embedded4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case nat64.Contains(a), v4Compat.Contains(a) && a != unspecified && a != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case nat64Local.Contains(a):
		// RFC 8215: the prefix is a /48; translators commonly put the
		// IPv4 address in the last 32 bits.
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// liftedByLocalOutbound reports whether network.allowLocalOutbound lets a
// name allowed by the policy reach an address of class c: loopback and
// the private and unique-local ranges ("local" services, a registry on
// the LAN). Link-local (the cloud metadata service) and the rest are
// reached only when the policy lists the address itself.
func liftedByLocalOutbound(c Class) bool {
	return c == ClassLoopback || c == ClassPrivate || c == ClassUniqueLocal
}
