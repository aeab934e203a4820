// Loads the rendered plugin the way opencode does (its exported function,
// called with the session's directory) and runs one tool call through its
// tool.execute.before hook: prints {"args": …} when the call would run,
// {"threw": message} when the hook blocked it, {"loadThrew": …} when
// loading failed.
// Usage: node driver.mjs PLUGIN DIRECTORY CALLS_JSON [CONFIG_JSON]
import { pathToFileURL } from "node:url";

const [plugin, directory, calls, config] = process.argv.slice(2);
const out = [];
let hooks;
try {
	const mod = await import(pathToFileURL(plugin).href);
	hooks = await mod.PicketFence({ directory, worktree: directory });
} catch (e) {
	console.log(JSON.stringify([{ loadThrew: String(e?.message ?? e) }]));
	process.exit(0);
}
if (config) await hooks.config(JSON.parse(config));
for (const c of JSON.parse(calls)) {
	const start = Date.now();
	const output = { args: c.args };
	try {
		await hooks["tool.execute.before"]({ tool: c.tool, sessionID: "ses_1", callID: "call_1" }, output);
		out.push({ args: output.args, ms: Date.now() - start });
	} catch (e) {
		out.push({ threw: String(e?.message ?? e), ms: Date.now() - start });
	}
}
await hooks.dispose?.();
console.log(JSON.stringify(out));
process.exit(0);
