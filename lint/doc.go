// Package lint reads a resolved policy the way a careful person would and
// points at the rules that are likely not what their author meant.
//
// [Run] returns [Warning] values, each naming the file, line and column of
// the rule it is about (built-in templates are named "builtin:<name>").
// Lint never blocks anything: a warning is advice, and the policy is
// enforced exactly as written whatever lint says.
//
// # What it catches
//
//   - canaries: an allowRead entry that matches /etc/passwd, ~/.ssh/id_rsa,
//     ~/.aws/credentials or ~/.bash_history, an allowWrite entry that matches
//     /etc/hosts, ~/.bashrc or ~/.zshrc. The entry is tested against the
//     canary with [decide]'s own matching, so a lint warning and a decision
//     never disagree on what a pattern means;
//   - a workspace root that is the home directory or one of its ancestors;
//   - "**", "/**", "~/**" and their like at the top of allowRead or
//     allowWrite;
//   - brace patterns ("~/.{ssh,aws}"): braces are literal in picket and in
//     fence, so such a rule names one odd path, not several;
//   - a "**" fused with other characters ("a**", "**b"), often a typo for "*";
//   - a policy file, or a directory above it, writable by other users;
//   - a rule that can never match ("." or ".." after a glob, since the paths
//     picket judges are resolved and hold neither) and a rule whose ".."
//     climbs above "/" (it is read as if the extra ".." were not there);
//   - a relative rule whose ".." climbs out of the workspace root
//     ("../other/notes.txt"): picket anchors it on the root and matches the
//     path outside, but the root depends on the session (CLAUDE_PROJECT_DIR,
//     the git top level, the working directory), so the rule names another
//     path when the root moves;
//   - a picket.prompt.timeoutSeconds over [decide.PromptTimeoutCap]: the hook
//     cuts it to the cap, 30 s under the hook timeout install writes;
//   - an allow entry fully shadowed by denyRead, denyWrite, picket.blocklist
//     or a mandatory deny: the path it names, and so everything below it,
//     is denied anyway;
//   - a picket.permissions rule of the policy's own that grants reading and
//     so opens the .env files below it that a built-in template hides (its
//     .env rules sit below every rule a project writes);
//   - a picket.sandbox.keepEnv entry that lets a credential variable (one
//     picket.sandbox.stripEnv matches) through to every sandboxed command;
//   - "*" in network.allowedDomains (network-all), and an allowedDomains
//     entry that names a host serving anyone's content: paste and
//     file-drop sites, request catchers, tunnels, chat webhooks, forms,
//     object stores and raw-file hosts (network-user-content; the list is
//     userContent in network.go), tested with the proxy's own matcher.
//
// # What it does not catch
//
// Lint judges patterns, not the files on disk: it does not find secrets
// under other names, does not know which paths an agent will touch, and
// tests an allow entry against its literal prefix only, so an entry that is
// shadowed only for some of the paths it matches is not reported. Of
// fence's network section it reads allowedDomains only (an entry is a
// policy error when it names no host, before lint runs); the command and
// ssh sections are left to picket show's notes, and the shell sandbox's
// own coverage is not checked yet. Canary and shadow checks test
// each entry on its own; two entries that are harmless apart and risky
// together are not reported.
package lint
