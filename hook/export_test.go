package hook

// Targets maps a call to its targets through the registry of agents, for
// the tests of this package that start from an agent's call. The agents
// import this package, so the registry is wired in from the external test
// package (registry_test.go).
var Targets func(c Call) ([]Target, error)
