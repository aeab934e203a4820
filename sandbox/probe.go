package sandbox

// ProbeEnv names a command run instead of picket's user-namespace probe;
// tests set it to simulate a machine without user namespaces. It can only
// make picket refuse: bubblewrap still has to create the sandbox.
const ProbeEnv = "PICKET_SANDBOX_PROBE"
