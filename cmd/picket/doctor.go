package main

import (
	"context"

	"github.com/picketdev/picket/hook/agents"
	"github.com/picketdev/picket/hook/doctor"
)

func init() { commands["doctor"] = runDoctor }

// runDoctor is picket doctor: package hook/doctor over the registry. It
// exits 1 when it found a problem, 2 on a usage error.
func runDoctor(c *cli, args []string) int {
	if !c.noArgs("doctor", args) {
		return 2
	}
	o, err := installOptions(c, "")
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	if doctor.Write(c.stdout, doctor.Check(context.Background(), doctor.Options{InstallOptions: o, Agents: agents.All})) > 0 {
		return 1
	}
	return 0
}
