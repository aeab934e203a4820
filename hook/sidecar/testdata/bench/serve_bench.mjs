// serve_bench.mjs drives `picket serve` the way the Pi extension does (a
// child process, NDJSON over its stdin and stdout) and, as the baseline, a
// trivial echo server over the same kind of pipe. It reports the round-trip
// median and p99 with one request in flight (the two servers asked in
// turn), and decisions per second with many in flight (the median of
// alternating rounds).
//
//   node serve_bench.mjs --picket BIN --echo BIN [--seq 20000] [--n 100000] [--rounds 5] [--inflight 256] [--json]
//
// It builds its own project (fence.jsonc with .env blocklisted, a README)
// and HOME under a temp dir; every decide reads README.md (an allow).
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

function args() {
  const a = { seq: 20000, n: 100000, rounds: 5, inflight: 256, warmup: 2000, json: false };
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i++) {
    const k = v[i].replace(/^--/, "");
    if (k === "json") a.json = true;
    else a[k] = ["picket", "echo"].includes(k) ? v[++i] : Number(v[++i]);
  }
  if (!a.picket || !a.echo) throw new Error("usage: serve_bench.mjs --picket BIN --echo BIN");
  return a;
}

// Client is one child process with its responses matched to requests by id.
class Client {
  constructor(cmd, argv, env) {
    this.p = spawn(cmd, argv, { stdio: ["pipe", "pipe", "inherit"], env });
    this.pending = new Map();
    this.next = 0;
    createInterface({ input: this.p.stdout, crlfDelay: Infinity }).on("line", (line) => {
      const res = JSON.parse(line);
      const done = this.pending.get(res.id);
      if (!done) throw new Error("unexpected response " + line);
      this.pending.delete(res.id);
      done(res);
    });
  }
  request(body) {
    const id = ++this.next;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.p.stdin.write(JSON.stringify({ id, ...body }) + "\n");
    });
  }
  close() {
    this.p.stdin.end();
    return new Promise((resolve) => this.p.on("exit", resolve));
  }
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

// sequential measures round trips with one request in flight, alternating
// between the clients request by request so both see the same machine.
async function sequential(clients, body, warmup, n) {
  for (let i = 0; i < warmup; i++) for (const c of clients) await c.request(body);
  const us = clients.map(() => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < clients.length; j++) {
      const t0 = process.hrtime.bigint();
      const res = await clients[j].request(body);
      us[j][i] = Number(process.hrtime.bigint() - t0) / 1000;
      if (!res.ok) throw new Error("request failed: " + JSON.stringify(res));
    }
  }
  return us.map((u) => {
    u.sort();
    return { median: quantile(u, 0.5), p99: quantile(u, 0.99) };
  });
}

// pipelined sends n requests keeping inflight of them outstanding.
async function pipelined(client, body, n, inflight, check) {
  let sent = 0, bad = 0;
  const t0 = process.hrtime.bigint();
  async function lane() {
    while (sent < n) {
      sent++;
      const res = await client.request(body);
      if (!check(res)) bad++;
    }
  }
  await Promise.all(Array.from({ length: inflight }, lane));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (bad) throw new Error(`${bad} unexpected answers`);
  return n / s;
}

// rounds runs the pipelined measurement in alternating rounds and returns
// each client's median rate.
async function rounds(runs, count) {
  const rates = runs.map(() => []);
  for (let r = 0; r < count; r++) {
    for (let j = 0; j < runs.length; j++) rates[j].push(await runs[j]());
  }
  return rates.map((v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)]);
}

async function main() {
  const a = args();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "picket-bench-")));
  const proj = join(root, "project"), home = join(root, "home");
  mkdirSync(join(proj, ".git"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(proj, "fence.jsonc"), '{"extends": "code", "picket": {"blocklist": [".env"]}}\n');
  writeFileSync(join(proj, "README.md"), "# bench\n");
  writeFileSync(join(proj, ".env"), "SECRET=1\n");
  const env = { PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: join(home, ".local", "state"), XDG_CONFIG_HOME: join(home, ".config") };
  const decide = { op: "decide", session: "bench-session", turn: 0, cwd: proj, tool: "read", input: { path: "README.md" }, prompt: false };
  const allowed = (r) => r.ok && r.allow === true && r.judged === true;

  const picket = new Client(a.picket, ["serve", "--agent", "pi"], env);
  const echo = new Client(a.echo, [], env);
  const hello = await picket.request({ op: "hello" });
  const first = await picket.request(decide);
  if (!allowed(first)) throw new Error("decide README.md: " + JSON.stringify(first));
  const blocked = await picket.request({ ...decide, input: { path: ".env" } });
  if (blocked.allow !== false) throw new Error("decide .env: " + JSON.stringify(blocked));

  const [echoSeq, picketSeq] = await sequential([echo, picket], decide, a.warmup, a.seq);
  const per = Math.ceil(a.n / a.rounds);
  const [echoRate, picketRate] = await rounds([
    () => pipelined(echo, decide, per, a.inflight, (r) => r.ok),
    () => pipelined(picket, decide, per, a.inflight, allowed),
  ], a.rounds);
  await Promise.all([picket.close(), echo.close()]);
  rmSync(root, { recursive: true, force: true });

  const out = {
    picket: hello.picket, node: process.version, seq: a.seq, n: a.n, inflight: a.inflight,
    echoMedianUs: echoSeq.median, echoP99Us: echoSeq.p99,
    picketMedianUs: picketSeq.median, picketP99Us: picketSeq.p99,
    medianRatio: picketSeq.median / echoSeq.median,
    echoPerSecond: echoRate, picketDecisionsPerSecond: picketRate,
  };
  if (a.json) {
    console.log(JSON.stringify(out));
    return;
  }
  const f = (x) => x.toFixed(1);
  console.log(`round trip, one in flight (${a.seq} requests each, interleaved):`);
  console.log(`  echo          median ${f(out.echoMedianUs)} µs  p99 ${f(out.echoP99Us)} µs`);
  console.log(`  picket serve  median ${f(out.picketMedianUs)} µs  p99 ${f(out.picketP99Us)} µs`);
  console.log(`  ratio (median) ${out.medianRatio.toFixed(2)}x  (target ≤ 1.5x)`);
  console.log(`pipelined, ${a.inflight} in flight (${a.n} requests each, median of ${a.rounds} alternating rounds):`);
  console.log(`  echo          ${Math.round(out.echoPerSecond)} lines/s`);
  console.log(`  picket serve  ${Math.round(out.picketDecisionsPerSecond)} decisions/s  (target ≥ 50000)`);
}

main().catch((e) => {
  console.error("serve_bench: " + (e.stack || e));
  process.exit(1);
});
