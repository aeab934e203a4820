package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version from the build info is used.
var version = ""

func init() { commands["version"] = runVersion }

func picketVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

func runVersion(c *cli, args []string) int {
	if !c.noArgs("version", args) {
		return 2
	}
	fmt.Fprintf(c.stdout, "picket %s\n", picketVersion())
	return 0
}
