// Open-loop load at a fixed rate: one request every 1000/rate ms, each sent on its own schedule
// whether or not earlier ones have been answered. A request's latency is counted from the moment it
// was SCHEDULED, so a stalled server (or a late generator) shows up in the figures instead of
// silently delaying the next sends (coordinated omission).
//
// Why not autocannon's overallRate: it lets each connection send its per-second quota back to back
// at every one-second tick (bursts of `connections` concurrent requests, then silence), and its
// coordinated-omission correction uses an expected interval of ceil(1/rate) = 1 ms, which records a
// 20 ms answer as twenty samples 20, 19, …, 1 — a histogram weighted by latency. Neither is
// "p99 at 100 requests/s".
import http from 'node:http';

/**
 * @param {string} url         base URL, e.g. http://127.0.0.1:3000
 * @param {() => {path: string, headers: Record<string,string>, body: string}} nextRequest
 * @param {{rate: number, seconds: number}} opts
 */
export async function pacedLoad(url, nextRequest, { rate, seconds }) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const interval = 1000 / rate;
  const total = Math.round(rate * seconds);
  const latencies = [];
  const statuses = {};
  let errors = 0;
  let lateSends = 0;
  const start = performance.now() + 20;
  const pending = [];

  const send = (scheduled) => new Promise((resolve) => {
    const { path, headers, body } = nextRequest();
    const request = http.request({ host: hostname, port, path, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.resume();
      response.on('end', () => {
        latencies.push(performance.now() - scheduled);
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        resolve();
      });
    });
    request.setTimeout(10_000, () => request.destroy(new Error('timeout')));
    request.on('error', () => {
      errors += 1;
      resolve();
    });
    request.end(body);
  });

  for (let i = 0; i < total; i++) {
    const scheduled = start + i * interval;
    const wait = scheduled - performance.now();
    // No busy-waiting (the generator shares the two cores with the server): a timer that fires up
    // to ~1 ms late adds that to the request's latency, which errs against the server.
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (performance.now() - scheduled > interval) lateSends += 1;
    pending.push(send(scheduled));
  }
  await Promise.all(pending);
  agent.destroy();

  latencies.sort((a, b) => a - b);
  const at = (q) => latencies.length === 0 ? NaN : latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
  return {
    samples: latencies.length,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies.at(-1) ?? NaN,
    rate: total / seconds,
    statuses,
    errors,
    lateSends,
  };
}
