// npm run bench:agent — what the agent loop (dist/agent/agent-loop.js, built first when missing or
// older than src/agent) adds to each tool call: the time that is neither the model's answer nor
// the command itself. A scripted mock model (MockLanguageModelV4 from `ai/test`) answers at once
// with one tool call per answer, BENCH_CALLS (500) calls cycling through a realistic mix of the
// `code` toolset — bash (`ls`, `cat`, `grep -n`), read_file, write_file, edit_file (a unique
// match each time), search — then `finish`. The session runs as a pipeline step does: the
// in-process sandbox from dist/ holding a small source tree, UNLIMITED_PROVIDER_GATE, generous
// limits, a no-op observer, a few secrets to scrub. Per tool call:
//
//   model     doStream called → its stream read to the end (timestamps inside the mock)
//   command   time inside the sandbox's exec / putArchive / getArchive (a timing proxy around the
//             sandbox the trees hold; time in the loop's onLine callbacks is not counted here)
//   overhead  wall time from the end of model answer i to the start of model call i+1, minus the
//             command time within it: the SDK reading the answer and building the next request,
//             budgets, events, scrubbing, the tool's own parsing, the tar of a write …
//
// Baseline, same run, same sandbox: the exact command strings the proxy saw passed to exec and
// the exact tar payloads passed to putArchive, replayed directly against the sandbox in the same
// order, grouped by the tool call that made them; "agent total − direct" pairs each tool call with
// its own replay (the stricter reading of "added per call": it also counts any slowdown of the
// commands themselves inside the agent's process). A separate warm-up session of BENCH_WARMUP (50)
// calls (and a replay of its commands) runs first. Target: overhead ≤ 10 ms at p50. Prints
// figures only, no assertions; removes the sandbox it made.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { MockLanguageModelV4 } from 'ai/test';
import tar from 'tar-stream';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const TARGET_P50_MS = 10;
const SECRETS = ['sk-bench-0123456789abcdef0123', 'ghp_BenchToken0123456789abcdefABCDEF', 'hunter2-database-password'];

const built = join(ROOT, 'dist/agent/agent-loop.js');
const newestSource = (dir) => Math.max(...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newestSource(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));
if (!existsSync(built) || statSync(built).mtimeMs < newestSource(join(ROOT, 'src/agent'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
const { createAgentSession } = await import(built);
const { UNLIMITED_PROVIDER_GATE } = await import(join(ROOT, 'dist/agent/provider-gate.js'));
const { InProcessBackend } = await import(join(ROOT, 'dist/sandbox/in-process.backend.js'));

// ---------------------------------------------------------------------------------------------
// The tree: a few source files of a small shop service (one holds a secret the scrubber removes).

function sourceTree() {
  const lines = (n, make) => Array.from({ length: n }, (_, i) => make(i + 1)).join('\n') + '\n';
  return {
    'package.json': JSON.stringify({ name: 'shop-cart', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n',
    'README.md': '# shop-cart\n\nThe cart and pricing of the shop.\n\n' + lines(30, (i) => `- note ${i}: the cart keeps items until checkout`),
    'src/cart.ts': "import { priceOf } from './pricing.js';\n\nexport const MAX_ITEMS = 10;\n\n"
      + lines(120, (i) => `export function step${i}(cart: Cart): Cart {\n  // TODO: validate item ${i}\n  return { ...cart, total: cart.total + priceOf(${i}) };\n}`),
    'src/pricing.ts': lines(80, (i) => `export const PRICE_${i} = ${i * 3};`) + 'export function priceOf(n: number): number {\n  return n * 3;\n}\n',
    'src/util.ts': lines(60, (i) => `export const util${i} = (x: number) => x + ${i}; // TODO tidy`),
    'src/config.ts': `export const config = {\n  apiKey: '${SECRETS[0]}',\n  region: 'eu-west-1',\n};\n`,
    'test/cart.test.ts': lines(40, (i) => `test('step ${i}', () => expect(step${i}(empty).total).toBe(${i * 3}));`),
  };
}

async function tarOf(files) {
  const pack = tar.pack();
  for (const [name, text] of Object.entries(files)) pack.entry({ name, mode: 0o644 }, text);
  pack.finalize();
  return Readable.from(pack, { objectMode: false });
}

// ---------------------------------------------------------------------------------------------
// The mix of tool calls, cycled. The edit alternates between two texts so old_text always occurs
// exactly once (the count is global, so the warm-up session and the measured one stay in step).

let edits = 0;
const MIX = [
  () => ({ name: 'bash', input: { command: 'ls -la src test' } }),
  () => ({ name: 'read_file', input: { path: 'src/cart.ts' } }),
  () => ({ name: 'search', input: { pattern: 'TODO', path: 'src' } }),
  () => ({ name: 'bash', input: { command: 'cat src/pricing.ts' } }),
  () => {
    const from = edits % 2 === 0 ? 'MAX_ITEMS = 10;' : 'MAX_ITEMS = 20;';
    const to = edits % 2 === 0 ? 'MAX_ITEMS = 20;' : 'MAX_ITEMS = 10;';
    edits += 1;
    return { name: 'edit_file', input: { path: 'src/cart.ts', old_text: from, new_text: to } };
  },
  () => ({ name: 'bash', input: { command: 'grep -n priceOf src/cart.ts' } }),
  (n) => ({ name: 'write_file', input: { path: 'src/generated/summary.ts', content: `// call ${n}\n` + 'export const summary = [\n' + '  "line of generated text",\n'.repeat(40) + '];\n' } }),
  () => ({ name: 'read_file', input: { path: 'src/config.ts' } }),
  () => ({ name: 'search', input: { pattern: 'priceOf\\(' } }),
  () => ({ name: 'bash', input: { command: 'cat src/config.ts README.md' } }),
];

// ---------------------------------------------------------------------------------------------
// The clock shared by the mock model and the sandbox proxy. `step` is the tool call being served:
// after answer i (0-based) the sandbox work until model call i+1 belongs to step i.

function newRecorder() {
  return { modelStart: [], modelEnd: [], commandMs: [], ops: [], step: -1, tools: [], rss: [] };
}

/** The mock model: one tool call per answer, instantly; `finish` after `calls` tool calls. */
function scriptedModel(rec, calls) {
  const model = new MockLanguageModelV4({
    provider: 'bench',
    modelId: 'scripted',
    doStream: async () => {
      const started = performance.now();
      model.doStreamCalls.length = 0; // the mock keeps every call's options: 500 prompts of a growing conversation
      const n = rec.modelStart.length;
      rec.modelStart.push(started);
      rec.step = n; // work from here on (after this answer) belongs to tool call n
      const call = n < calls ? MIX[n % MIX.length](n) : { name: 'finish', input: { summary: `done after ${calls} tool calls` } };
      if (n < calls) rec.tools.push(call.name);
      rec.commandMs.push(0);
      if (n % 50 === 0) rec.rss.push(process.memoryUsage.rss());
      const parts = [
        { type: 'stream-start', warnings: [] },
        { type: 'tool-call', toolCallId: `call-${n}`, toolName: call.name, input: JSON.stringify(call.input) },
        {
          type: 'finish',
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: {
            inputTokens: { total: 1000, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 50, text: undefined, reasoning: undefined },
          },
        },
      ];
      let i = 0;
      const stream = new ReadableStream(
        {
          pull(controller) {
            if (i < parts.length) controller.enqueue(parts[i++]);
            else {
              rec.modelEnd[n] = performance.now();
              controller.close();
            }
          },
        },
        { highWaterMark: 0 },
      );
      return { stream };
    },
  });
  return model;
}

/** The sandbox as the trees see it: every exec / putArchive / getArchive timed, commands and payloads recorded. */
function timingProxy(sandbox, rec) {
  return {
    name: sandbox.name,
    workdir: sandbox.workdir,
    async exec(command, options) {
      let inCallback = 0;
      const onLine = (stream, line) => {
        const t = performance.now();
        options.onLine(stream, line);
        inCallback += performance.now() - t;
      };
      const step = rec.step;
      const t = performance.now();
      try {
        return await sandbox.exec(command, { ...options, onLine });
      } finally {
        const ms = performance.now() - t - inCallback;
        rec.commandMs[step] += ms;
        rec.ops.push({ step, kind: 'exec', command, timeoutMs: options.timeoutMs, env: options.env, ms });
      }
    },
    async putArchive(stream) {
      // Buffered first (the tar is built lazily by the caller: producing it is the server's work),
      // then the sandbox's own unpacking is timed.
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      const payload = Buffer.concat(chunks);
      const step = rec.step;
      const t = performance.now();
      try {
        return await sandbox.putArchive(Readable.from([payload]));
      } finally {
        const ms = performance.now() - t;
        rec.commandMs[step] += ms;
        rec.ops.push({ step, kind: 'put', payload, ms });
      }
    },
    async getArchive() {
      const step = rec.step;
      const t = performance.now();
      const archive = await sandbox.getArchive();
      const chunks = [];
      for await (const chunk of archive) chunks.push(chunk);
      const ms = performance.now() - t;
      rec.commandMs[step] += ms;
      rec.ops.push({ step, kind: 'get', ms });
      return Readable.from([Buffer.concat(chunks)]);
    },
    destroy: () => sandbox.destroy(),
  };
}

const observer = {
  modelCall() {},
  toolCall() {},
  narration() {},
  usage: async () => undefined,
};

async function runSession(sandbox, calls) {
  const rec = newRecorder();
  const session = createAgentSession({
    model: scriptedModel(rec, calls),
    modelLabel: 'bench/scripted',
    system: 'You are a coding agent working on the shop-cart repository. Use the tools; call finish when done.',
    trees: [{ prefix: null, sandbox: timingProxy(sandbox, rec) }],
    toolset: 'code',
    limits: { maxSteps: calls + 10, maxTokens: 1e12, maxCostUsd: null, stepTimeoutMs: 30 * 60_000 },
    prices: null,
    observer,
    signal: new AbortController().signal,
    secrets: SECRETS,
    gate: UNLIMITED_PROVIDER_GATE,
  });
  const started = performance.now();
  const outcome = await session.send('Raise the cart limit and keep the pricing consistent.');
  const wallMs = performance.now() - started;
  if (outcome.kind !== 'finished') throw new Error(`the session ended ${outcome.kind}: ${JSON.stringify(outcome)}`);
  if (rec.modelStart.length !== calls + 1) throw new Error(`expected ${calls + 1} model calls, got ${rec.modelStart.length}`);
  const perCall = [];
  for (let i = 0; i < calls; i++) {
    const model = rec.modelEnd[i] - rec.modelStart[i];
    const step = rec.modelStart[i + 1] - rec.modelEnd[i];
    perCall.push({ tool: rec.tools[i], total: model + step, model, command: rec.commandMs[i], overhead: step - rec.commandMs[i] });
  }
  return { perCall, ops: rec.ops, wallMs, rssMb: Math.max(...rec.rss) / 1e6 };
}

/** The recorded commands and payloads, run directly against the sandbox in the same order; ms per tool call. */
async function replay(sandbox, ops, calls) {
  const perCall = new Array(calls).fill(0);
  const ignore = () => {};
  for (const op of ops) {
    if (op.step >= calls) continue;
    const t = performance.now();
    if (op.kind === 'exec') await sandbox.exec(op.command, { timeoutMs: op.timeoutMs, env: op.env, onLine: ignore });
    else if (op.kind === 'put') await sandbox.putArchive(Readable.from([op.payload]));
    else await finished((await sandbox.getArchive()).resume());
    perCall[op.step] += performance.now() - t;
  }
  return perCall;
}

const sorted = (values) => [...values].sort((a, b) => a - b);
const pct = (values, p) => {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const f = (ms) => ms.toFixed(2).padStart(8);

// ---------------------------------------------------------------------------------------------

const backend = new InProcessBackend(process.env.PATH);
const sandbox = await backend.create({ runId: 'bench-agent', name: 'shop-cart', env: {} });
process.once('SIGINT', () => {
  void sandbox.destroy().finally(() => process.exit(130));
});
try {
  await sandbox.putArchive(await tarOf(sourceTree()));
  const benchStarted = performance.now();

  const warm = await runSession(sandbox, WARMUP);
  await replay(sandbox, warm.ops, WARMUP);

  const agent = await runSession(sandbox, CALLS);
  const directMs = await replay(sandbox, agent.ops, CALLS);
  const directRssMb = process.memoryUsage.rss() / 1e6;
  const { perCall } = agent;

  const col = (key) => perCall.map((c) => c[key]);
  console.log(`\n${CALLS} scripted tool calls in one session (after a ${WARMUP}-call warm-up session), in-process sandbox from dist/, ms per tool call`);
  console.log(`${''.padEnd(44)}${'p50'.padStart(8)}${'p99'.padStart(8)}${'mean'.padStart(8)}`);
  const row = (name, values) => console.log(`${name.padEnd(44)}${f(pct(values, 50))}${f(pct(values, 99))}${f(mean(values))}`);
  row('agent: per tool call, total', col('total'));
  row('  of which model answer (mock, instant)', col('model'));
  row('  of which command (inside the sandbox)', col('command'));
  row('  of which overhead (the server)', col('overhead'));
  row('baseline: same commands direct in sandbox', directMs);
  row('agent total − direct, call by call', perCall.map((c, i) => c.total - directMs[i]));

  console.log('\noverhead by tool (ms)');
  for (const tool of [...new Set(perCall.map((c) => c.tool))]) {
    const of = perCall.filter((c) => c.tool === tool);
    const overhead = of.map((c) => c.overhead);
    const command = of.map((c) => c.command);
    console.log(`  ${tool.padEnd(12)} n=${String(of.length).padStart(3)}  overhead p50 ${f(pct(overhead, 50))}  p99 ${f(pct(overhead, 99))}   command p50 ${f(pct(command, 50))}`);
  }
  const fifth = Math.max(1, Math.floor(CALLS / 5));
  const early = perCall.slice(0, fifth).map((c) => c.overhead);
  const late = perCall.slice(-fifth).map((c) => c.overhead);
  console.log(`\noverhead as the conversation grows: calls 1-${fifth} p50 ${pct(early, 50).toFixed(2)} ms, calls ${CALLS - fifth + 1}-${CALLS} p50 ${pct(late, 50).toFixed(2)} ms`);
  console.log(`process RSS: up to ${agent.rssMb.toFixed(0)} MB during the agent run, ${directRssMb.toFixed(0)} MB after the direct replay (each command forks this process: its cost grows with the RSS)`);
  const p50 = pct(col('overhead'), 50);
  console.log(`agent run ${(agent.wallMs / 1000).toFixed(1)} s for ${CALLS} calls; sandbox operations ${agent.ops.length}; whole bench ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`);
  console.log(`\noverhead p50 ${p50.toFixed(2)} ms per tool call (target ≤ ${TARGET_P50_MS} ms: ${p50 <= TARGET_P50_MS ? 'met' : 'NOT met'})`);
} finally {
  await sandbox.destroy();
}
