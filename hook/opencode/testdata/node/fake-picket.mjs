#!/usr/bin/env node
// A stand-in for picket in the plugin's tests. As `picket serve` it
// answers as FAKE_MODE says; as `picket run` it prints its arguments as
// JSON (the plugin's bash rewrite, as the shell split it).
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const args = process.argv.slice(2);
if (args[0] === "run") {
	process.stdout.write(JSON.stringify(args) + "\n");
	process.exit(0);
}
const mode = process.env.FAKE_MODE ?? "ok";
const log = process.env.FAKE_LOG;
if (mode === "exit") process.exit(3);
const send = (o) => process.stdout.write(JSON.stringify(o) + "\n");
createInterface({ input: process.stdin }).on("line", (line) => {
	const r = JSON.parse(line);
	if (log) appendFileSync(log, line + "\n");
	if (r.op === "hello") return send({ id: r.id, ok: true, picket: "fake", protocol: mode === "protocol" ? 2 : 1 });
	if (r.op !== "decide") return send({ id: r.id, ok: true });
	switch (mode) {
		case "deny":
			return send({ id: r.id, ok: true, judged: true, allow: false, message: "picket: blocked read /p/.env\n{}" });
		case "garbage":
			return process.stdout.write("this is not JSON\n");
		case "late":
			return; // never answers
		case "killed":
			return process.kill(process.pid, "SIGKILL");
		case "killonce": {
			const marker = process.env.FAKE_MARKER;
			if (!existsSync(marker)) {
				writeFileSync(marker, "");
				return process.kill(process.pid, "SIGKILL");
			}
			break;
		}
		case "wrongid":
			return send({ id: r.id + 100, ok: true, judged: true, allow: true });
		case "noallow":
			return send({ id: r.id, ok: true, judged: true });
		case "error":
			return send({ id: r.id, ok: false, error: "boom" });
		case "notjudgedstring":
			return send({ id: r.id, ok: true, judged: false, allow: "true" });
	}
	const resolved = typeof r.input?.filePath === "string" ? r.input.filePath.replace("/link", "/target") : undefined;
	send({ id: r.id, ok: true, judged: true, allow: true, decision: { allow: true, resolved } });
});
