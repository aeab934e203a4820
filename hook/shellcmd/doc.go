// Package shellcmd reads a bash command line before it runs and says
// which paths it touches, and how: for agents whose shell picket cannot
// wrap in its sandbox (Codex reads files only through its shell, and a
// hook there may not rewrite a command without an "allow"), the hook must
// judge the command line itself.
//
// [Analyze] parses the line with mvdan.cc/sh (bash dialect) and walks it
// as bash would run it: quotes, escapes and $'...' strings; brace
// expansion; "~", "~user" (through [Env.Users]) and "~" after "=" in an
// argument that reads as an assignment (dd if=~/x); $VAR, ${VAR...} and
// arrays from [Env.Vars] and from the script's own assignments (FOO=x cmd
// sets FOO for cmd only, and only exported variables reach a child
// shell); globs expanded against [Env.FS] relative to the command's
// working directory, with the shopt options the script sets; word
// splitting; redirections (<, >, >>, >|, &>, &>>, <>, fd duplications,
// here-documents and here-strings); pipelines, lists, subshells, groups,
// if, case, for, while, functions (walked at each call with its
// arguments), traps; command and process substitutions (their commands
// are walked; a word that uses a command's output is unknown); "cd DIR"
// (later words resolve against every directory the shell may be in by
// then); and the wrappers env, sudo, doas, nice, nohup, timeout, exec,
// command, builtin, time, stdbuf, setsid, ionice, chrt, taskset, busybox,
// watch, flock, su -c, xargs, find -exec, and bash/sh/dash/zsh/ksh -c
// (recursively) or with a script on standard input that picket can see.
// Codex's shell form of apply_patch (apply_patch <<'EOF' ...) is read with
// package patch.
//
// # What it reports
//
//   - Write, for redirection targets and the destinations of the usual
//     writers: tee, cp, mv (both ends), install, ln, rm, rmdir, unlink,
//     shred, touch, mkdir, truncate, chmod, chown, chgrp, setfacl, dd of=,
//     sed -i, sort -o, uniq's output, rsync and scp, tar -x and zip and
//     unzip, gzip and the other compressors, curl -o/-O, wget, and git rm,
//     mv, checkout, restore, clean, reset and clone. A write is reported
//     whether or not the path exists.
//   - Read, for input redirections, the files of readers (cat, head, tail,
//     grep, rg, sed, awk, jq, diff, sort, wc, source and ".", ...), the
//     sources of copies and links, curl's and wget's uploads, the operands
//     of git's other subcommands, and every operand (and every option's
//     "=value", and what follows an "@") of a program it does not know. List, for
//     ls, stat, test -e and [[ -f ]], find and du.
//   - Recursive, for what reaches a whole tree (grep -r, rg, find, cp -r,
//     rm -r, chmod -R, tar, rsync -a, du, git grep): the caller judges
//     everything below, as for a recursive file tool.
//
// A read or list of a word that names neither an existing path, nor a
// path in the workspace ([Env.Root]), nor one the same line wrote before,
// is not reported: it names no file (a pattern, a message, a URL).
// Targets are absolute but not cleaned: ".." and symlinks are left for
// decide.Check, which judges both readings.
//
// [Result.Commands] lists every simple command as it will run (wrappers,
// and what they run, each on its own), and [CommandPolicy.Check] applies
// fence's command section to them (command.deny, command.allow and
// command.useDefaults with fence's built-in list), with fence's matching,
// and fence's ssh section to ssh commands (allowed and denied hosts, and
// the remote command, split into its commands, against allowed and
// denied commands, with inheritDeny and allowAllCommands). An argument
// picket cannot expand matches every deny entry and no allow entry.
//
// # What is not analysable
//
// Analyze returns an [UnanalysableError], never an empty result, for a
// line it cannot read with confidence; the caller denies the command. That
// includes: a line bash would not parse (unbalanced quotes, an unfinished
// here-document); eval, enable, fish and csh; a command name, a cd target,
// a redirection target or a path operand built from something picket
// cannot know (a variable not in Env.Vars nor set by the script, unless
// [Env.Complete]; $$, $RANDOM and their kind; a command's output; read,
// mapfile); xargs feeding unknown words to a program that takes paths;
// find -execdir; sed scripts with r, R, w, W or e (or s///w, s///e); awk
// programs with getline from a file or command, system(), or print
// redirected; tar, rsync or rg options that
// run programs; patch and git apply; git -c, config, --git-dir; a shell
// that reads commands from a pipe, or sources $BASH_ENV; hash -p;
// ${x@P}, and arithmetic in a line where a variable holds "$(" or "`"
// (bash runs a command substitution inside an array subscript it
// evaluates); shopt expand_aliases or cdable_vars; CDPATH; popd; and past
// the bounds: [MaxSize] bytes of input,
// [DefaultMaxEntries] directory entries read by globs, [MaxFields] fields
// from one word, [MaxTargets] targets, 16 levels of nested shells,
// functions or loops, 8 possible working directories, and a few thousand
// statements walked as functions and loops unroll.
//
// # What it does not stop
//
// This layer is best effort: it judges the words of the command line,
// not what the programs do. A program can build a path at run time
// (python -c "open('.e'+'nv')", a script file, a Makefile, a test suite,
// an alias in a sourced file), read a file a directory operand holds
// without the caller scanning it (only the tools listed as recursive are),
// follow a symlink created after the check, or receive a path on its
// standard input (cat list | xargs is denied, but a program reading names
// from a file is not seen). Unknown programs' operands are judged as
// reads only: a program that writes to its operand (some-tool --out=x)
// is judged as reading it. git's other subcommands have their operands
// judged as reads (and REV:path as a read of path), and an operand picket
// cannot expand is skipped outside diff, add, show, cat-file, blame and
// log; what git reads from its object store or runs from configuration is
// not seen. awk's and sed's
// detection of I/O is a pattern match over the program text. Nothing
// here replaces the agent's own sandbox or picket run: use them alongside.
package shellcmd
