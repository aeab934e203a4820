//go:build !linux

package proxy

import "net"

// clientSocket leaves c as it is: the tuning is Linux's.
func clientSocket(net.Conn) {}
