/**
 * picket for Pi: every read, write, edit, ls, grep and find call is judged by
 * `picket serve` (a sidecar speaking NDJSON over its stdin and stdout) before
 * it runs. Installed by `picket install pi`, which bakes the picket
 * executable's absolute path into PICKET below.
 *
 * What it guarantees: a file tool call runs only after the sidecar answered
 * "allow" for the exact absolute path Pi's own tool will open (the call's
 * path is rewritten to that path first, then to the resolved path picket
 * judged; a call whose path Pi would not open as rewritten, as where the
 * session cwd or the home holds a Unicode space, is blocked). A sidecar that dies, hangs or speaks another protocol is
 * restarted once; if it is still down, file tools are blocked. Every bash
 * tool call and every `!cmd` runs under `picket run` (see BASH below),
 * unless picket's status says the shell sandbox cannot work on this machine;
 * a broken policy or a sidecar that is down does not unfence bash. Pi's
 * tool calls in one message run one at a time while the bash tool is
 * picket's, so a command cannot swap a symlink between another call's
 * judgement and its run. What it does NOT stop: bash where the sandbox
 * cannot work (the footer says so), other extensions' tools, a path
 * swapped by another process (one not Pi's) between judgement and use,
 * and Pi's own reads of its config and session files.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import { isAbsolute, join, resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline";
import type { BashSpawnContext, ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { createBashToolDefinition, createLocalBashOperations, getShellConfig } from "@mariozechner/pi-coding-agent";

/** The picket executable, an absolute path written by `picket install pi`. */
const PICKET = "__PICKET_EXE__";
/** The sidecar protocol this extension speaks (`hello` must say the same). */
const PROTOCOL = 1;
/** How long one sidecar request may take before the sidecar counts as dead. */
const TIMEOUT_MS = 15_000;
/**
 * The longest request line `picket serve` reads (its maxLine, newline not
 * counted); it answers a longer one without an id, so the extension must
 * not send one.
 */
const MAX_LINE = 16 << 20;
const FILE_TOOLS = new Set(["read", "write", "edit", "ls", "grep", "find"]);
const GRANT_ENTRY = "picket-grant";
const STATUS_KEY = "picket";

const BASH_KEPT = "picket: bash and !cmd still run under picket run, which refuses them or fences them";
const DOWN = "picket: error: the picket sidecar is not running; file tools are blocked";
/** Said once on stderr where there is no footer (pi -p) and bash runs unfenced. */
const NO_SANDBOX =
	"picket: warning: bash runs UNFENCED in this session: picket's shell sandbox cannot work here (it needs Linux, bubblewrap and user namespaces); file tools are still judged\n" +
	"picket: hint: run 'picket show' to see why";

const FOOTER = {
	fenced: "🔒 fenced (bash + fs)",
	noLandlock: "🔒 fenced (bash + fs); no Landlock: bubblewrap alone fences bash",
	noSandbox: "🔒 fenced (fs); bash UNFENCED: no shell sandbox here",
	noStatus: "⛔ picket status failed: bash runs under picket run; see /fence",
	unfenced: "⚠ unfenced (--no-fence)",
	unavailable: "⛔ picket unavailable: file tools blocked; bash runs under picket run",
};

/**
 * What picket's status says of the shell sandbox: "works"; "unavailable"
 * (not Linux, bubblewrap missing or user namespaces off: bash runs
 * unfenced, the one case it may); "unknown" (no status yet, or it failed: bash still runs
 * under picket run, which refuses or fences).
 */
type Shell = "works" | "unavailable" | "unknown";

type Reply = { id: number; ok: boolean; error?: string; [k: string]: any };

/** TooLarge is a request over MAX_LINE: refused before it is sent. */
class TooLarge extends Error {
	constructor(readonly bytes: number) {
		super(`the request is ${mib(bytes)}, over the ${mib(MAX_LINE)} picket serve reads in one line`);
	}
}

function mib(n: number): string {
	return `${(n / (1 << 20)).toFixed(1)} MiB`;
}
type Grant = { access: string; path: string };

// ---------------------------------------------------------------------------
// Paths, resolved exactly as Pi 0.73.1's built-in tools resolve them
// (dist/core/tools/path-utils.js): one leading "@" dropped, Unicode spaces
// made plain, "~" and "~/" expanded with os.homedir(), relative paths
// anchored on the session cwd; read also tries the macOS spellings of a file
// that does not exist as written.

const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

function expandPath(p: string): string {
	const n = (p.startsWith("@") ? p.slice(1) : p).replace(UNICODE_SPACES, " ");
	if (n === "~") return os.homedir();
	if (n.startsWith("~/")) return os.homedir() + n.slice(1);
	return n;
}

function resolveToCwd(p: string, cwd: string): string {
	const e = expandPath(p);
	return isAbsolute(e) ? e : resolvePath(cwd, e);
}

/** shellQuote quotes s as one word for a POSIX shell. */
function shellQuote(s: string): string {
	return `'${s.replace(/'/g, `'\\''`)}'`;
}

function exists(p: string): boolean {
	try {
		accessSync(p, constants.F_OK);
		return true;
	} catch {
		return false;
	}
}

function resolveReadPath(p: string, cwd: string): string {
	const r = resolveToCwd(p, cwd);
	if (exists(r)) return r;
	const nfd = r.normalize("NFD");
	const variants = [
		r.replace(/ (AM|PM)\./gi, "\u202F$1."),
		nfd,
		r.replace(/'/g, "\u2019"),
		nfd.replace(/'/g, "\u2019"),
	];
	for (const v of variants) if (v !== r && exists(v)) return v;
	return r;
}

/**
 * pinPath rewrites the call's path to the absolute path Pi's tool will open,
 * so what picket judges and what the tool touches cannot differ. Pi runs
 * tools with the mutated input (docs/extensions.md, tool_call), and resolves
 * that input again: a pin holds only where Pi resolves the pinned path to
 * itself. It does not where the session cwd or the home holds a Unicode
 * space (Pi makes the space plain and opens a sibling), and then pinPath
 * returns why the call must be blocked; otherwise "".
 */
function pinPath(tool: string, input: Record<string, any>, cwd: string): string {
	const p = input?.path;
	if (typeof p !== "string" || p === "") return ""; // absent: the tool's "." = cwd
	const pinned = toolPath(tool, p, cwd);
	const opened = toolPath(tool, pinned, cwd);
	if (opened !== pinned) return unpinnable(tool, pinned, opened);
	input.path = pinned;
	return "";
}

/** unpinnable is the block reason for a path Pi would not open as judged. */
function unpinnable(tool: string, pinned: string, opened: string): string {
	return (
		`picket: blocked: this ${tool} call's path resolves to ${visible(pinned)}, but Pi's ${tool} tool would open ` +
		`${visible(opened)} (it turns Unicode spaces into plain ones), so picket cannot make it open the path it judges; ` +
		"the session's directory or the home holds a Unicode space: work in a directory without one, or use bash"
	);
}

/** visible quotes p with its Unicode spaces spelled out (\u00a0). */
function visible(p: string): string {
	return JSON.stringify(p).replace(UNICODE_SPACES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function toolPath(tool: string, p: string, cwd: string): string {
	return tool === "read" ? resolveReadPath(p, cwd) : resolveToCwd(p, cwd);
}

/**
 * pinResolved rewrites an allowed read, write or edit to the resolved path
 * picket judged (symlinks followed), so a link swapped after the judgement
 * does not move the call. Only a path Pi's tool opens unchanged is used: Pi
 * makes Unicode spaces plain and tries other spellings of a missing file.
 */
function pinResolved(tool: string, input: Record<string, any>, decision: any, cwd: string): void {
	const r = decision?.resolved;
	if (!PIN_RESOLVED.has(tool) || typeof input?.path !== "string" || typeof r !== "string" || !isAbsolute(r)) return;
	if (toolPath(tool, r, cwd) === r) input.path = r;
}

const PIN_RESOLVED = new Set(["read", "write", "edit"]);

// ---------------------------------------------------------------------------
// The sidecar: one `picket serve` child, requests matched to replies by id.

class Sidecar {
	private child?: ChildProcess;
	private next = 1;
	private pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
	private stderr = "";
	alive = false;

	start(): void {
		const child = spawn(PICKET, ["serve"], { stdio: ["pipe", "pipe", "pipe"], env: process.env });
		this.child = child;
		this.alive = true;
		child.on("error", (e) => this.fail(child, `failed to run ${PICKET} serve: ${e.message}`));
		child.on("exit", (code, sig) => this.fail(child, `picket serve exited (${sig ?? code})`));
		child.stdin!.on("error", (e) => this.fail(child, `picket serve: ${e.message}`));
		child.stderr!.on("data", (b: Buffer) => {
			this.stderr = (this.stderr + b.toString()).slice(-2000);
		});
		createInterface({ input: child.stdout! }).on("line", (line) => this.reply(line));
	}

	/** lastError is the end of what the sidecar wrote to stderr. */
	lastError(): string {
		return this.stderr.trim().split("\n").slice(-3).join("\n");
	}

	pid(): number | undefined {
		return this.child?.pid;
	}

	private reply(line: string): void {
		let r: Reply;
		try {
			r = JSON.parse(line);
		} catch {
			return; // not ours to answer; the request times out and fails closed
		}
		const p = this.pending.get(r?.id);
		if (!p) return;
		this.pending.delete(r.id);
		clearTimeout(p.timer);
		p.resolve(r);
	}

	private fail(child: ChildProcess, why: string): void {
		if (child !== this.child) return;
		this.alive = false;
		for (const [id, p] of this.pending) {
			clearTimeout(p.timer);
			p.reject(new Error(why));
			this.pending.delete(id);
		}
		child.kill("SIGKILL");
	}

	call(op: string, fields: Record<string, unknown> = {}): Promise<Reply> {
		const child = this.child;
		if (!this.alive || !child?.stdin?.writable) return Promise.reject(new Error("picket serve is not running"));
		const id = this.next++;
		const line = JSON.stringify({ id, op, ...fields });
		const size = Buffer.byteLength(line, "utf8");
		if (size > MAX_LINE) return Promise.reject(new TooLarge(size));
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.pending.delete(id);
				reject(new Error(`picket serve did not answer ${op} within ${TIMEOUT_MS / 1000} s`));
				this.fail(child, "picket serve timed out");
			}, TIMEOUT_MS);
			this.pending.set(id, { resolve, reject, timer });
			child.stdin!.write(line + "\n");
		});
	}

	close(): void {
		const child = this.child;
		if (!child) return;
		this.alive = false;
		child.stdin?.end();
		setTimeout(() => child.kill("SIGKILL"), 2000).unref();
		this.child = undefined;
	}
}

/** Throws unless the sidecar answered ok. */
function must(r: Reply): Reply {
	if (!r.ok) throw new Error(r.error || "picket serve refused the request");
	return r;
}

// ---------------------------------------------------------------------------
// The extension.

export default function (pi: ExtensionAPI) {
	pi.registerFlag("no-fence", {
		description: "picket: judge no file tool call (the footer says unfenced)",
		type: "boolean",
		default: false,
	});

	let sidecar: Sidecar | undefined;
	let unavailable = ""; // why file tools are blocked, once a restart failed
	let session = "";
	let cwd = process.cwd();
	let turn = 0;
	let mode = ""; // this session's /fence mode, re-sent to a restarted sidecar
	let grants: Grant[] = []; // this session's grants, re-sent to a restarted sidecar
	let prompting: Promise<unknown> = Promise.resolve(); // one prompt at a time
	let shell: Shell = "unknown";
	/** landlock: the sandbox has its second layer (picket's status said a Landlock ABI). */
	let landlock = true;
	let bashRegistered = false;
	let warnedNoSandbox = false;

	const noFence = () => pi.getFlag("no-fence") === true;
	/** wrapBash: bash runs under picket run unless fencing is off or cannot work here. */
	const wrapBash = () => !noFence() && shell !== "unavailable";

	/** start runs a fresh sidecar and brings it up to this session's state. */
	async function start(): Promise<Sidecar> {
		const s = new Sidecar();
		s.start();
		try {
			const hello = must(await s.call("hello"));
			if (hello.protocol !== PROTOCOL) {
				throw new Error(
					`picket ${hello.picket ?? "?"} at ${PICKET} speaks sidecar protocol ${hello.protocol}, this extension speaks ${PROTOCOL}; run 'picket install pi' again with the picket you use`,
				);
			}
			for (const g of grants) {
				must(await s.call("grant", { session, turn: String(turn), cwd, tool: "", access: g.access, path: g.path, resolved: g.path, answer: "session", restore: true }));
			}
			if (mode) must(await s.call("mode", { session, mode }));
		} catch (e) {
			s.close();
			const why = e instanceof Error ? e.message : String(e);
			const tail = s.lastError();
			throw new Error(tail && !why.includes(tail) ? `${why}: ${tail}` : why);
		}
		return s;
	}

	/**
	 * request sends one request; a dead sidecar is restarted once, and when
	 * that fails too every later request fails at once (file tools blocked)
	 * until /fence reload starts it again.
	 */
	async function request(op: string, fields: Record<string, unknown> = {}): Promise<Reply> {
		if (unavailable) throw new Error(unavailable);
		if (sidecar?.alive) {
			try {
				return await sidecar.call(op, fields);
			} catch (e) {
				if (sidecar.alive) throw e; // alive but answered badly: not a crash
			}
		}
		sidecar?.close();
		sidecar = undefined;
		try {
			sidecar = await start();
		} catch (e) {
			unavailable = e instanceof Error ? e.message : String(e);
			throw e;
		}
		return sidecar.call(op, fields);
	}

	function footer(ctx: ExtensionContext): void {
		if (ctx.hasUI) ctx.ui.setStatus(STATUS_KEY, footerText());
	}

	function footerText(): string {
		if (noFence()) return FOOTER.unfenced;
		if (unavailable) return FOOTER.unavailable;
		if (shell === "works") return landlock ? FOOTER.fenced : FOOTER.noLandlock;
		return shell === "unavailable" ? FOOTER.noSandbox : FOOTER.noStatus;
	}

	/**
	 * refreshFooter asks the sidecar for its status. Only a status saying
	 * the shell sandbox cannot work here leaves bash unfenced; a status
	 * that cannot be had (a broken policy, a sidecar that is down) keeps
	 * bash under picket run, which then refuses or fences. It returns why
	 * the status failed, or "".
	 */
	async function refreshFooter(ctx: ExtensionContext): Promise<string> {
		let why = "";
		try {
			const status = must(await request("status", { cwd }));
			shell = status.sandbox === true ? "works" : status.sandbox === false ? "unavailable" : "unknown";
			landlock = typeof status.landlock === "number" ? status.landlock > 0 : true;
		} catch (e) {
			shell = "unknown";
			why = e instanceof Error ? e.message : String(e);
		}
		if (wrapBash()) fenceBash();
		footer(ctx);
		warnNoSandbox(ctx);
		return why;
	}

	/**
	 * warnNoSandbox says once on stderr that bash runs unfenced, where no
	 * footer can (pi -p): the person must not take the run for a fenced one.
	 */
	function warnNoSandbox(ctx: ExtensionContext): void {
		if (ctx.hasUI || warnedNoSandbox || noFence() || shell !== "unavailable") return;
		warnedNoSandbox = true;
		console.error(NO_SANDBOX);
	}

	pi.on("session_start", async (_event, ctx) => {
		session = ctx.sessionManager.getSessionId();
		cwd = ctx.cwd;
		turn = 0;
		mode = "";
		unavailable = "";
		shell = "unknown";
		// Grants live in the session (so they follow resume and fork, and a
		// /new session starts without them).
		grants = [];
		for (const e of ctx.sessionManager.getEntries() as any[]) {
			if (e?.type === "custom" && e.customType === GRANT_ENTRY && typeof e.data?.access === "string" && typeof e.data?.path === "string") {
				grants.push({ access: e.data.access, path: e.data.path });
			}
		}
		if (noFence()) {
			footer(ctx);
			return;
		}
		try {
			sidecar = await start();
		} catch (e) {
			unavailable = e instanceof Error ? e.message : String(e);
			fenceBash(); // picket run needs no sidecar
			footer(ctx);
			if (ctx.hasUI) ctx.ui.notify(`picket: error: ${unavailable}\n${DOWN}\n${BASH_KEPT}`, "error");
			return;
		}
		const why = await refreshFooter(ctx);
		if (!ctx.hasUI) return;
		if (why) ctx.ui.notify(`picket: error: status failed: ${why}\n${BASH_KEPT}`, "error");
		try {
			const lint = must(await request("lint", { cwd }));
			const warnings = (lint.warnings ?? []).map((w: any) => `picket: ${w.text ?? JSON.stringify(w)}`);
			if (warnings.length > 0) ctx.ui.notify(warnings.join("\n"), "warning");
		} catch (e) {
			ctx.ui.notify(`picket: warning: lint failed: ${(e as Error).message}`, "warning");
		}
	});

	pi.on("turn_end", async () => {
		turn++;
		if (noFence() || unavailable || !sidecar?.alive) return;
		try {
			await request("turn_end", { session });
		} catch {
			// the next decide restarts or blocks
		}
	});

	pi.on("session_shutdown", async () => {
		const s = sidecar;
		sidecar = undefined;
		if (!s) return;
		if (s.alive) {
			try {
				await s.call("session_end", { session });
			} catch {
				// closing anyway
			}
		}
		s.close();
	});

	pi.on("tool_call", async (event, ctx) => {
		if (!FILE_TOOLS.has(event.toolName) || noFence()) return;
		const input = event.input as Record<string, any>;
		try {
			const unpinned = pinPath(event.toolName, input, ctx.cwd);
			if (unpinned) return { block: true, reason: unpinned };
			const call = { session, turn: String(turn), cwd: ctx.cwd, tool: event.toolName, input };
			const r = must(await request("decide", { ...call, prompt: ctx.hasUI }));
			const block = { block: true, reason: String(r.message || "picket: blocked") };
			if (r.allow !== true) {
				if (!r.promptable || !ctx.hasUI || !r.request) return block;
				if (!(await serialized(() => ask(ctx, r, event.toolName)))) return block;
			}
			pinResolved(event.toolName, input, r.decision, ctx.cwd);
		} catch (e) {
			if (e instanceof TooLarge) return { block: true, reason: tooLarge(event.toolName, e) };
			const why = e instanceof Error ? e.message : String(e);
			if (ctx.hasUI) footer(ctx);
			return { block: true, reason: unavailable ? `${DOWN} (${why})` : `picket: error: ${why}; the call is blocked` };
		}
	});

	// A file tool that ran feeds picket's read-before-edit ledger, which
	// needs the path only (a write's content may be over MAX_LINE).
	pi.on("tool_result", async (event, ctx) => {
		if (!FILE_TOOLS.has(event.toolName) || event.isError || noFence() || unavailable) return;
		const path = (event.input as Record<string, any>)?.path;
		try {
			await request("tool_result", { session, cwd: ctx.cwd, tool: event.toolName, input: typeof path === "string" ? { path } : {} });
		} catch {
			// the next decide restarts or blocks
		}
	});

	/** tooLarge is the block reason for a call too big to send to the sidecar. */
	function tooLarge(tool: string, e: TooLarge): string {
		const how = tool === "write" ? "write the file in parts (a smaller write, then edits), or with bash" : "split it into smaller calls";
		return `picket: blocked: this ${tool} call is ${mib(e.bytes)}, over the ${mib(MAX_LINE)} picket can judge in one call; ${how}`;
	}

	function serialized<T>(f: () => Promise<T>): Promise<T> {
		const run = prompting.then(f, f);
		prompting = run.catch(() => undefined);
		return run;
	}

	/** ask shows picket's prompt, then records the answer with the sidecar. */
	async function ask(ctx: ExtensionContext, r: Reply, tool: string): Promise<boolean> {
		const d = r.decision ?? {};
		let answer = await showPrompt(ctx, r.request);
		if (answer === "individually") {
			// The batch question was answered "one at a time": ask about this one.
			answer = await showPrompt(ctx, { ...r.request, batch: undefined });
		}
		const g = must(
			await request("grant", {
				session, turn: String(turn), cwd: ctx.cwd, tool, access: d.access, path: d.path, resolved: d.resolved, answer,
				target: r.request?.persistTarget ?? "", // a persist is written there, or not at all
			}),
		);
		if (g.allow !== true) return false;
		if (answer === "session" || answer === "persist") {
			const grant = { access: String(d.access), path: String(d.resolved) };
			grants.push(grant);
			pi.appendEntry(GRANT_ENTRY, grant);
		}
		return true;
	}

	/**
	 * showPrompt stops Pi's TUI, runs `picket prompt` on the terminal (it
	 * opens /dev/tty itself: the 500 ms guard, the deny default and the
	 * persist confirmation are picket's), and starts the TUI again, as Pi's
	 * interactive-shell example does. Anything but a readable answer is a deny.
	 */
	async function showPrompt(ctx: ExtensionContext, req: unknown): Promise<string> {
		const dir = mkdtempSync(join(os.tmpdir(), "picket-prompt-"));
		const reqFile = join(dir, "request.json");
		const ansFile = join(dir, "answer.json");
		try {
			writeFileSync(reqFile, JSON.stringify(req), { mode: 0o600 });
			await ctx.ui.custom<void>((tui, _theme, _kb, done) => {
				tui.stop();
				process.stdout.write("\x1b[2J\x1b[H");
				const child = spawn(PICKET, ["prompt", "--request", reqFile, "--answer", ansFile, "--tty", "/dev/tty"], {
					stdio: "inherit",
					env: process.env,
				});
				const finish = () => {
					tui.start();
					tui.requestRender(true);
					done();
				};
				child.on("error", finish);
				child.on("exit", finish);
				return { render: () => [], invalidate: () => {} };
			});
			const a = JSON.parse(readFileSync(ansFile, "utf8"));
			return typeof a?.answer === "string" ? a.answer : "deny";
		} catch {
			return "deny";
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	// -----------------------------------------------------------------------
	// BASH: Pi's bash tool is replaced by Pi's own, built with a spawnHook
	// that runs each command as `picket run --cwd <cwd> --session <session>
	// -- <shell> -c <command>`, and `!cmd` is wrapped the same way. This
	// holds whenever picket is on, also when the policy is broken or the
	// sidecar is down (picket run then refuses, or fences on its own). Only
	// where picket's status says the sandbox cannot work here (bubblewrap
	// missing, user namespaces off), or with --no-fence, does bash stay
	// Pi's and unfenced, and the footer says so. The replacement uses Pi's
	// default shell: the shellPath and shellCommandPrefix settings do not
	// reach it.
	//
	// The replacement is "sequential": Pi then runs every call of a message
	// that holds a bash call one at a time, each judged just before it runs.
	// In parallel, Pi judges all calls first and then runs them together,
	// so a command could swap a symlink that a read or write of the same
	// message was already judged through.
	// -----------------------------------------------------------------------

	/** sandboxed is the command line that runs command in picket's sandbox. */
	function sandboxed(command: string, dir: string): string {
		const args = ["run", "--cwd", dir, "--agent", "pi"];
		if (session) args.push("--session", session);
		// The session's /fence mode holds for bash as for the file tools.
		if (mode) args.push("--mode", mode);
		args.push("--", getShellConfig().shell, "-c", command);
		return `exec ${[PICKET, ...args].map(shellQuote).join(" ")}`;
	}

	function spawnHook(c: BashSpawnContext): BashSpawnContext {
		return wrapBash() ? { ...c, command: sandboxed(c.command, c.cwd) } : c;
	}

	/** fenceBash replaces Pi's bash tool, once, with the sandboxed one. */
	function fenceBash(): void {
		if (bashRegistered) return;
		bashRegistered = true;
		pi.registerTool({
			...createBashToolDefinition(cwd, { spawnHook }),
			executionMode: "sequential",
			async execute(id, params, signal, onUpdate, ctx) {
				return createBashToolDefinition(ctx.cwd, { spawnHook }).execute(id, params, signal, onUpdate, ctx);
			},
		});
	}

	// Pi runs `!cmd` unwrapped when a handler throws: fail closed instead.
	pi.on("user_bash", () => {
		if (!wrapBash()) return;
		try {
			const local = createLocalBashOperations();
			return {
				operations: {
					exec: (command: string, dir: string, options: any) => local.exec(sandboxed(command, dir), dir, options),
				},
			};
		} catch (e) {
			const why = e instanceof Error ? e.message : String(e);
			return { result: { output: `picket: error: ${why}; the command did not run\n`, exitCode: 126, cancelled: false, truncated: false } };
		}
	});

	pi.registerCommand("fence", {
		description: "picket: show the policy; log [N], reload, init, lint, grants, mode read-only|workspace-write|full",
		getArgumentCompletions: (prefix: string) => {
			const subs = ["log", "reload", "init", "lint", "grants", "mode read-only", "mode workspace-write", "mode full"];
			// A whole subcommand offers nothing, so Enter runs it at once.
			if (subs.includes(prefix.trim())) return null;
			const items = subs.filter((s) => s.startsWith(prefix)).map((s) => ({ value: s, label: s }));
			return items.length > 0 ? items : null;
		},
		handler: async (args: string, ctx: ExtensionCommandContext) => {
			const [sub = "", ...rest] = args.trim().split(/\s+/).filter(Boolean);
			try {
				const text = await fenceCommand(ctx, sub, rest);
				if (text) ctx.ui.notify(text, "info");
			} catch (e) {
				const msg = (e as Error).message;
				ctx.ui.notify(msg.startsWith("picket:") ? msg : `picket: error: ${msg}`, "error");
			}
		},
	});

	async function fenceCommand(ctx: ExtensionCommandContext, sub: string, rest: string[]): Promise<string> {
		if (noFence() && sub !== "init") return "picket is off in this session (--no-fence)";
		switch (sub) {
			case "":
			case "show":
				return formatShow(must(await request("show", { cwd: ctx.cwd })));
			case "log": {
				const n = rest[0] ? Number.parseInt(rest[0], 10) : 20;
				if (!Number.isFinite(n) || n <= 0) throw new Error(`/fence log takes a positive number, got ${rest[0]}`);
				const r = must(await request("log", { n: Math.min(n, 500) }));
				const lines = (r.entries ?? []).map(formatLogEntry);
				return lines.length > 0 ? lines.join("\n") : "the audit log is empty";
			}
			case "reload": {
				if (unavailable) {
					unavailable = ""; // the person asked: try the sidecar again
					sidecar?.close();
					sidecar = undefined;
				}
				const r = must(await request("reload", { cwd: ctx.cwd }));
				const why = await refreshFooter(ctx);
				if (why) throw new Error(`reloaded the policy, but status failed: ${why}`);
				return `picket: reloaded the policy: ${(r.chain ?? []).join(" → ")}`;
			}
			case "init":
				return runInit(ctx);
			case "lint": {
				const r = must(await request("lint", { cwd: ctx.cwd }));
				const w = (r.warnings ?? []).map((x: any) => x.text ?? JSON.stringify(x));
				// Notes: what the shell sandbox cannot enforce (file-tools-only
				// rules, network domains), as picket lint prints them.
				const n = (r.notes ?? []).map((x: any) => x.text ?? JSON.stringify(x));
				return [...(w.length > 0 ? w : ["picket: lint: no warnings"]), ...n].join("\n");
			}
			case "grants":
				return grants.length > 0
					? ["session grants:", ...grants.map((g) => `  ${g.access.padEnd(6)} ${g.path}`)].join("\n")
					: "no session grants";
			case "mode": {
				const m = rest[0] ?? "";
				if (!["read-only", "workspace-write", "full"].includes(m)) {
					throw new Error("/fence mode takes read-only, workspace-write or full");
				}
				must(await request("mode", { session, mode: m }));
				mode = m;
				return `picket: mode ${m} for this session`;
			}
		}
		throw new Error(`unknown /fence subcommand ${JSON.stringify(sub)}; try log [N], reload, init, lint, grants or mode`);
	}

	async function runInit(ctx: ExtensionCommandContext): Promise<string> {
		const r = await pi.exec(PICKET, ["init", "--cwd", ctx.cwd], { timeout: 15_000 });
		const out = `${r.stdout}${r.stderr}`.trim();
		if (r.code !== 0) throw new Error(out || `picket init exited ${r.code}`);
		if (sidecar?.alive) await request("reload", { cwd: ctx.cwd }).catch(() => undefined);
		return out || "picket: wrote fence.jsonc";
	}

	function formatShow(s: Reply): string {
		const applies = (s.appliesTo ?? {}) as Record<string, string>;
		const sources = (s.sources ?? {}) as Record<string, string>;
		const out = [
			`chain (root first): ${(s.chain ?? []).join(" → ") || "none"}`,
			`workspace root: ${s.root}`,
			`mode: ${s.mode}`,
		];
		if (Array.isArray(s.mandatory) && s.mandatory.length > 0) {
			out.push("mandatory write denies (applies to: both; no rule or grant lifts them):");
			for (const m of s.mandatory) out.push(`  ${m.pattern ?? JSON.stringify(m)}`);
		}
		const field = (name: string, value: unknown) => {
			const from = sources[name] ? `, from ${sources[name]}` : "";
			const head = `${name} (applies to: ${applies[name] ?? "none"}${from})`;
			if (Array.isArray(value)) {
				out.push(`${head}:`, ...value.map((v) => `  ${typeof v === "string" ? v : JSON.stringify(v)}`));
			} else {
				out.push(`${head}: ${JSON.stringify(value)}`);
			}
		};
		for (const [k, v] of Object.entries((s.policy ?? {}) as Record<string, unknown>)) {
			const nested = (k === "filesystem" || k === "picket") && v && typeof v === "object" && !Array.isArray(v);
			if (nested) for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) field(`${k}.${k2}`, v2);
			else field(k, v);
		}
		return out.join("\n");
	}

	function formatLogEntry(e: any): string {
		if (typeof e === "string") return e;
		const when = typeof e.ts === "string" ? e.ts.replace(/\.\d+/, "") : "";
		return [when, e.decision, e.tool, e.access, e.path ?? e.command, e.rule ? `(${e.rule})` : ""].filter(Boolean).join(" ");
	}
}
