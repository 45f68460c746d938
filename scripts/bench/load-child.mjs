/**
 * The proxy benchmark's load generator, in a process of its own so that the
 * benchmark's heap (its workloads, their garbage collections) never stalls
 * it. Open loop at a fixed rate: request i is due at start + i / rate, and a
 * timer tick every millisecond sends whatever is due, on up to CONNECTIONS
 * keep-alive `node:http` connections (a request waits in the agent when all
 * are busy). Each request's latency runs from the moment it is handed to the
 * client to the end of its answer, in `process.hrtime` nanoseconds; no
 * histogram rounds it. The request is built once (raw header list with its
 * content-length); an answer is drained, not kept. Plain JavaScript, so no
 * loader takes part, and nothing but `node:http` per request.
 *
 * Usage: node load-child.mjs JSON where JSON is
 *   { url, body, headers, rate, connections, warmup, duration, timeout }
 * (seconds for warmup, duration and timeout). Prints `{"phase":"measure"}`
 * when the measured part starts, then one JSON line with the result:
 *   { requests, non2xx, errors, timeouts, seconds, p50, p90, p99, max } (ms).
 */
import { Agent, request } from 'node:http';

const settings = JSON.parse(process.argv[2] ?? '{}');
const url = new URL(settings.url);
const body = Buffer.from(settings.body ?? '');
const agent = new Agent({ keepAlive: true, maxSockets: settings.connections ?? 10 });
const headers = ['host', url.host, 'content-length', String(body.length)];
for (const [name, value] of Object.entries({ 'content-type': 'application/json', ...settings.headers })) headers.push(name, String(value));
const options = { hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: 'POST', agent, headers, timeout: (settings.timeout ?? 10) * 1000 };
const interval = 1e9 / settings.rate;

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Load for `seconds`; resolves with the latencies (ns) of 2xx answers and the counts once every request sent has settled. */
function phase(seconds) {
  return new Promise((resolve) => {
    const latencies = [];
    const counts = { requests: 0, non2xx: 0, errors: 0, timeouts: 0 };
    const start = process.hrtime.bigint();
    const end = start + BigInt(Math.round(seconds * 1e9));
    let sent = 0;
    let pending = 0;
    let stopped = false;
    const settle = () => {
      pending--;
      if (stopped && pending === 0) resolve({ latencies, counts, seconds: Number(process.hrtime.bigint() - start) / 1e9 });
    };
    const send = () => {
      pending++;
      const began = process.hrtime.bigint();
      let done = false;
      const finish = (kind, status) => {
        if (done) return;
        done = true;
        counts.requests++;
        if (kind === 'error') counts.errors++;
        else if (kind === 'timeout') counts.timeouts++;
        else if (status < 200 || status > 299) counts.non2xx++;
        else latencies.push(Number(process.hrtime.bigint() - began));
        settle();
      };
      const outgoing = request(options, (answer) => {
        answer.on('data', () => {});
        answer.on('end', () => finish('answer', answer.statusCode ?? 0));
        answer.on('error', () => finish('error'));
      });
      outgoing.on('timeout', () => {
        finish('timeout');
        outgoing.destroy();
      });
      outgoing.on('error', () => finish('error'));
      outgoing.end(body);
    };
    const tick = () => {
      const now = process.hrtime.bigint();
      const due = now >= end ? Math.floor((seconds * 1e9) / interval) : Math.floor(Number(now - start) / interval) + 1;
      while (sent < due) {
        sent++;
        send();
      }
      if (now < end) {
        setTimeout(tick, 1);
        return;
      }
      stopped = true;
      if (pending === 0) resolve({ latencies, counts, seconds: Number(process.hrtime.bigint() - start) / 1e9 });
    };
    tick();
  });
}

if ((settings.warmup ?? 0) > 0) await phase(settings.warmup);
process.stdout.write(`${JSON.stringify({ phase: 'measure' })}\n`);
const { latencies, counts, seconds } = await phase(settings.duration);
latencies.sort((a, b) => a - b);
const ms = (ns) => ns / 1e6;
process.stdout.write(
  `${JSON.stringify({
    ...counts,
    seconds,
    p50: ms(percentile(latencies, 50)),
    p90: ms(percentile(latencies, 90)),
    p99: ms(percentile(latencies, 99)),
    max: latencies.length === 0 ? Number.NaN : ms(latencies[latencies.length - 1]),
  })}\n`,
);
agent.destroy();
