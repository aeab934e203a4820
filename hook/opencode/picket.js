/**
 * picket for opencode: every tool call is judged by `picket serve` (a
 * sidecar speaking NDJSON over its stdin and stdout, docs/sidecar-protocol.md)
 * before it runs, and every bash command runs under `picket run`. Installed
 * by `picket install opencode`, which bakes the picket executable's absolute
 * path into PICKET below. opencode loads it from ~/.config/opencode/plugins
 * or .opencode/plugins.
 *
 * What it guarantees: a tool call runs only after the sidecar answered
 * "allow" for it (a tool picket does not judge is answered "judged: false"
 * and left alone). A read, write, edit or lsp call is then pinned to the
 * resolved path picket judged, and the call's arguments are frozen, so
 * neither a symlink swapped after the judgement nor a plugin that runs after
 * this one can move the call elsewhere (such a plugin's change throws, and
 * the call fails). Every bash command is rewritten to run as `picket run
 * --cwd <workdir> --root <session directory> --session <id> --agent opencode
 * -- <shell> -c <command>`, with the shell opencode would use; a command it
 * cannot wrap is refused.
 *
 * It fails closed: opencode has no timeout for a plugin's hook and runs a
 * call whose hook returned, so the hook throws (which blocks the call, and
 * the model reads the message) when the sidecar cannot be started, dies,
 * answers anything but the protocol, speaks another protocol version, or
 * does not answer within its deadline. Nothing here lets a call through
 * because something failed; the module itself never throws while loading,
 * since opencode silently skips a plugin whose loading fails.
 *
 * What it does NOT stop: `opencode run --pure`, which loads no plugin;
 * opencode's own reads (its config, AGENTS.md files at session start, the
 * files a person @-mentions), MCP servers' and other plugins' own file
 * access, `!` commands the person types in the TUI, and a path swapped by
 * another process between the judgement and the tool's use of it.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join, resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The picket executable, an absolute path written by `picket install opencode`. */
const PICKET = "__PICKET_EXE__";
/** This plugin's own version, announced to the sidecar when it loads. */
const VERSION = "1";
/** The sidecar protocol this plugin speaks (`hello` must say the same). */
const PROTOCOL = 1;
/**
 * How long one request may take before the sidecar counts as dead and the
 * call is blocked: opencode itself would wait forever. A decide that may
 * put a question to the person gets the prompt's longest time (60 s),
 * the prompt lock and the search scan on top. PICKET_SIDECAR_TIMEOUT_MS
 * can only shorten both (tests). Starting picket serve gets 15 s whatever
 * it says.
 */
const START_TIMEOUT_MS = 15_000;
const TIMEOUT_MS = shortened(15_000);
const ASK_TIMEOUT_MS = shortened(90_000);
/**
 * The longest request line `picket serve` reads (its MaxLine, newline not
 * counted); it answers a longer one without an id, so none is sent.
 */
const MAX_LINE = 16 << 20;
/** Tools whose filePath is pinned to the resolved path picket judged. */
const PINNED = new Set(["read", "write", "edit", "lsp"]);
/**
 * The shells whose `-c` and quoting picket knows (opencode's POSIX shells);
 * opencode itself never uses fish or nu, falling back to bash, then sh.
 */
const POSIX_SHELLS = new Set(["sh", "bash", "dash", "ksh", "zsh"]);
const UNUSED_SHELLS = new Set(["fish", "nu"]);
/**
 * Whether picket run can build its shell sandbox here (hook.ShellSandboxed:
 * Linux only, for now). Elsewhere it refuses every command, so bash is
 * left as the model wrote it, unfenced, as every agent's wiring does
 * there; `picket install opencode` says so. The file tools are judged
 * either way.
 */
const SHELL_SANDBOXED = process.platform === "linux";
/**
 * The calls some picket plugin already judged and froze, shared by every
 * copy of this plugin opencode loaded (for the person and for the project):
 * a second copy leaves them alone rather than wrap a command twice.
 */
const FENCED = (globalThis[Symbol.for("picket.opencode.fenced")] ??= new WeakSet());

function shortened(ms) {
	const n = Number(process.env.PICKET_SIDECAR_TIMEOUT_MS);
	return Number.isFinite(n) && n > 0 && n < ms ? n : ms;
}

/** TooLarge is a request over MAX_LINE: refused before it is sent. */
class TooLarge extends Error {
	constructor(bytes) {
		super(`the request is ${mib(bytes)}, over the ${mib(MAX_LINE)} picket serve reads in one line`);
		this.bytes = bytes;
	}
}

function mib(n) {
	return `${(n / (1 << 20)).toFixed(1)} MiB`;
}

/** shellQuote quotes s as one word for a POSIX shell. */
function shellQuote(s) {
	return `'${s.replace(/'/g, `'\\''`)}'`;
}

function errorText(e) {
	return e instanceof Error ? e.message : String(e);
}

// ---------------------------------------------------------------------------
// The sidecar: one `picket serve` child, requests matched to replies by id.
// Anything but a well-formed answer to a pending request ends it: every
// pending request fails at once, and the next one starts a new sidecar.

class Sidecar {
	child = undefined;
	next = 1;
	/** id → {resolve, reject, timer} */
	pending = new Map();
	stderr = "";
	alive = false;

	start() {
		const child = spawn(PICKET, ["serve", "--agent", "opencode"], { stdio: ["pipe", "pipe", "pipe"], env: process.env });
		this.child = child;
		this.alive = true;
		child.on("error", (e) => this.fail(child, `failed to run ${PICKET} serve: ${e.message}`));
		child.on("exit", (code, sig) => this.fail(child, `picket serve exited (${sig ?? code})`));
		child.stdin.on("error", (e) => this.fail(child, `picket serve: ${e.message}`));
		child.stderr.on("data", (b) => {
			this.stderr = (this.stderr + b.toString()).slice(-2000);
		});
		createInterface({ input: child.stdout }).on("line", (line) => this.reply(child, line));
	}

	/** lastError is the end of what the sidecar wrote to stderr. */
	lastError() {
		return this.stderr.trim().split("\n").slice(-3).join("\n");
	}

	reply(child, line) {
		let r;
		try {
			r = JSON.parse(line);
		} catch {
			this.fail(child, `picket serve answered with a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
			return;
		}
		const p = r && typeof r === "object" ? this.pending.get(r.id) : undefined;
		if (!p) {
			this.fail(child, `picket serve answered a request it was not asked: ${JSON.stringify(line.slice(0, 200))}`);
			return;
		}
		this.pending.delete(r.id);
		clearTimeout(p.timer);
		p.resolve(r);
	}

	fail(child, why) {
		if (child !== this.child) return;
		this.alive = false;
		for (const [id, p] of this.pending) {
			clearTimeout(p.timer);
			p.reject(new Error(why));
			this.pending.delete(id);
		}
		child.kill("SIGKILL");
	}

	call(op, fields, timeout) {
		const child = this.child;
		if (!this.alive || !child?.stdin?.writable) return Promise.reject(new Error("picket serve is not running"));
		const id = this.next++;
		const line = JSON.stringify({ id, op, ...fields });
		const size = Buffer.byteLength(line, "utf8");
		if (size > MAX_LINE) return Promise.reject(new TooLarge(size));
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.pending.delete(id);
				reject(new Error(`picket serve did not answer ${op} within ${timeout / 1000} s`));
				this.fail(child, "picket serve timed out");
			}, timeout);
			this.pending.set(id, { resolve, reject, timer });
			child.stdin.write(line + "\n");
		});
	}

	close() {
		const child = this.child;
		if (!child) return;
		this.alive = false;
		child.stdin?.end();
		setTimeout(() => child.kill("SIGKILL"), 2000).unref();
		this.child = undefined;
	}
}

/** Throws unless the sidecar answered ok. */
function must(r) {
	if (r.ok !== true) throw new Error(r.error || "picket serve refused the request");
	return r;
}

// ---------------------------------------------------------------------------
// Bash: the command opencode would run as `<shell> -c <command>` in workdir
// runs as `picket run … -- <shell> -c <command>` instead, from a shell
// opencode starts as it always does.

function isFile(p) {
	try {
		return statSync(p).isFile();
	} catch {
		return false;
	}
}

/** which finds name on PATH, as opencode does. */
function which(name) {
	if (name.includes("/")) return isFile(resolvePath(name)) ? resolvePath(name) : undefined;
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		if (dir && isFile(join(dir, name))) return join(dir, name);
	}
	return undefined;
}

/**
 * opencodeShell is the shell opencode 1.18 runs bash commands with: its
 * `shell` setting, else $SHELL, unless that is fish or nu or cannot be
 * found; then bash from PATH, then /bin/sh.
 */
function opencodeShell(setting) {
	const want = setting || process.env.SHELL;
	if (want && !UNUSED_SHELLS.has(basename(want).toLowerCase())) {
		const found = isAbsolute(want) ? (isFile(want) ? want : undefined) : which(want);
		if (found) return found;
	}
	return which("bash") ?? "/bin/sh";
}

/**
 * sandboxed is the command line that runs command under picket run, for
 * opencode's shell to start. It throws for a command it cannot wrap.
 */
function sandboxed(args, session, directory, shell) {
	const command = args.command;
	if (typeof command !== "string") throw new Error("picket: blocked: this bash call has no command string");
	if (command.includes("\0")) throw new Error("picket: blocked: this bash command holds a NUL byte, which no command line can carry");
	if (!POSIX_SHELLS.has(basename(shell).toLowerCase())) {
		throw new Error(
			`picket: blocked: opencode runs bash commands with ${shell}, whose quoting picket does not know, so it cannot run the command under picket run; ` +
				`set "shell" in opencode.json (or $SHELL) to bash, zsh or sh`,
		);
	}
	if (args.workdir !== undefined && typeof args.workdir !== "string") throw new Error("picket: blocked: this bash call's workdir is not a string");
	const dir = args.workdir ? resolvePath(directory, args.workdir) : directory;
	const words = [PICKET, "run", "--cwd", dir, "--root", directory, "--session", session, "--agent", "opencode", "--", shell, "-c", command];
	return `exec ${words.map(shellQuote).join(" ")}`;
}

// ---------------------------------------------------------------------------
// The plugin.

export const PicketFence = async (input) => {
	const directory = typeof input?.directory === "string" && isAbsolute(input.directory) ? input.directory : process.cwd();
	const worktree = typeof input?.worktree === "string" ? input.worktree : directory;
	let sidecar; // the running Sidecar
	let starting; // a Promise of one, while it starts
	let shellSetting; // opencode's "shell" setting
	const turns = new Map(); // session → its user message being answered
	const ask = !process.env.CI; // headless (CI): every block is final, no one to ask

	/** start runs a fresh sidecar and checks that it speaks this protocol. */
	async function start() {
		const s = new Sidecar();
		s.start();
		try {
			const hello = must(await s.call("hello", {}, START_TIMEOUT_MS));
			if (hello.protocol !== PROTOCOL) {
				throw new Error(
					`picket ${hello.picket ?? "?"} at ${PICKET} speaks sidecar protocol ${hello.protocol}, this plugin speaks ${PROTOCOL}; run 'picket install opencode' again with the picket you use`,
				);
			}
		} catch (e) {
			s.close();
			const why = errorText(e);
			const tail = s.lastError();
			throw new Error(tail && !why.includes(tail) ? `${why}: ${tail}` : why);
		}
		return s;
	}

	/** live is a running sidecar, started once for concurrent callers. */
	async function live() {
		if (sidecar?.alive) return sidecar;
		sidecar?.close();
		sidecar = undefined;
		starting ??= start().finally(() => {
			starting = undefined;
		});
		sidecar = await starting;
		return sidecar;
	}

	async function request(op, fields, timeout = TIMEOUT_MS) {
		return must(await (await live()).call(op, fields, timeout));
	}

	/** judge asks the sidecar about one call and throws unless it is allowed. */
	async function judge(tool, session, args) {
		if (PINNED.has(tool) && typeof args.filePath === "string" && args.filePath !== "" && !isAbsolute(args.filePath)) {
			args.filePath = resolvePath(directory, args.filePath); // where opencode's tool opens it
		}
		const r = await request(
			"decide",
			{ session, turn: turns.get(session) ?? "", cwd: directory, tool, input: args, ask },
			ask ? ASK_TIMEOUT_MS : TIMEOUT_MS,
		);
		if (r.judged === false && r.allow === true) return; // not a tool picket judges
		if (r.allow !== true) throw new Error(String(r.message || "picket: blocked"));
		const resolved = r.decision?.resolved;
		if (PINNED.has(tool) && typeof args.filePath === "string" && typeof resolved === "string" && isAbsolute(resolved)) {
			args.filePath = resolved;
		}
	}

	function blocked(tool, e) {
		const why = errorText(e);
		if (e instanceof TooLarge) {
			const how = tool === "write" ? "write the file in parts (a smaller write, then edits)" : "split it into smaller calls";
			return new Error(`picket: blocked: this ${tool} call is ${mib(e.bytes)}, over the ${mib(MAX_LINE)} picket can judge in one call; ${how}`);
		}
		return new Error(why.startsWith("picket:") ? why : `picket: error: ${why}; the call is blocked`);
	}

	// Proof of life: opencode skips a plugin that fails to load without a
	// word, so the plugin tells picket it loaded (picket doctor reads it).
	try {
		const file = fileURLToPath(import.meta.url);
		const sha256 = createHash("sha256").update(readFileSync(file)).digest("hex");
		await request("announce", { cwd: directory, plugin: { file, version: VERSION, sha256, worktree } });
	} catch {
		// the first call starts the sidecar again, or is blocked
	}

	return {
		config: async (cfg) => {
			shellSetting = typeof cfg?.shell === "string" && cfg.shell !== "" ? cfg.shell : undefined;
		},

		"chat.message": async (inp, out) => {
			const session = inp?.sessionID;
			const turn = out?.message?.id ?? inp?.messageID;
			if (typeof session === "string" && typeof turn === "string") turns.set(session, turn);
		},

		"tool.execute.before": async (inp, out) => {
			const tool = String(inp?.tool ?? "");
			const session = String(inp?.sessionID ?? "");
			const args = out?.args;
			if (args === null || typeof args !== "object") {
				throw new Error(`picket: blocked: this ${tool} call's arguments are not an object`);
			}
			if (FENCED.has(args)) return; // another copy of this plugin fenced it
			try {
				if (tool === "bash") {
					if (SHELL_SANDBOXED) args.command = sandboxed(args, session, directory, opencodeShell(shellSetting));
				}
				else await judge(tool, session, args);
			} catch (e) {
				throw blocked(tool, e);
			}
			FENCED.add(args);
			Object.freeze(args);
		},

		// A read or write that ran feeds picket's read-before-edit ledger.
		"tool.execute.after": async (inp) => {
			const tool = inp?.tool;
			const path = inp?.args?.filePath;
			if (!PINNED.has(tool) || typeof path !== "string" || !sidecar?.alive) return;
			try {
				await request("tool_result", { session: String(inp.sessionID ?? ""), cwd: directory, tool, input: { filePath: path } });
			} catch {
				// the ledger misses one read: an edit of the file is judged without it
			}
		},

		event: async (inp) => {
			const ev = inp?.event;
			if (ev?.type !== "session.deleted" || !sidecar?.alive) return;
			const id = ev.properties?.info?.id;
			if (typeof id !== "string") return;
			turns.delete(id);
			try {
				await request("session_end", { session: id });
			} catch {
				// its grants are pruned with age
			}
		},

		dispose: async () => {
			sidecar?.close();
			sidecar = undefined;
		},
	};
};
