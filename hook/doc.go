// Package hook turns an agent's tool call into file accesses and judges them
// with package decide: the same resolver and matcher as every other picket
// command.
//
// It knows each agent's tool names and input fields ([ClaudeTargets]), reads
// Claude Code's hook events strictly ([ParseClaude]: exact key names, valid
// UTF-8, a JSON object), refuses recursive tools (Grep, Glob) whose root
// holds a path the policy denies, keeps the read-before-edit ledger, and
// writes the structured block message the model reads ([BlockMessage]).
//
// # What it does not stop
//
// Tools it does not know (MCP tools, web fetches) pass untouched: they are
// out of scope. Bash is judged by the shell sandbox, not here. A decision is
// made before the tool runs; a process racing the agent between the check
// and the use is not caught (see package decide).
package hook
