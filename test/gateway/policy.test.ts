/** The gateway's pieces on their own: when to retry, how long to wait, the model read from a body, weighted ranks, start-up warnings. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { backoffMs, decide, retryAfterMs, retryPolicy } from '../../src/gateway/retry.ts';
import { modelOf } from '../../src/gateway/model-of.ts';
import { createRouter, targetOrder } from '../../src/gateway/routing.ts';
import { gatewayWarnings } from '../../src/gateway/warnings.ts';
import type { UpstreamFailure } from '../../src/proxy/exchange.ts';
import type { ErrorType } from '../../src/core/ir.ts';

const status = (code: number, type: ErrorType = 'server'): UpstreamFailure => ({ kind: 'status', status: code, error: { type, message: 'x' } });

test('what is retried, moved on, or answered as it is', () => {
  for (const code of [408, 429, 500, 502, 503, 504, 529]) assert.is(decide(status(code)), 'retry', String(code));
  assert.is(decide(status(400, 'overloaded')), 'retry', "an overloaded_error whatever its status");
  for (const code of [401, 403, 404, 501]) assert.is(decide(status(code)), 'next', String(code));
  for (const code of [400, 409, 413, 422]) assert.is(decide(status(code, 'invalid_request')), 'answer', String(code));
  assert.is(decide({ kind: 'connect', error: { type: 'server', message: 'x' } }), 'retry');
  assert.is(decide({ kind: 'timeout', error: { type: 'timeout', message: 'x' } }), 'retry');
  assert.is(decide({ kind: 'broken', error: { type: 'server', message: 'x' } }), 'retry');
  assert.is(decide({ kind: 'cancelled', error: { type: 'server', message: 'x' } }), 'answer');
});

test('retry-after in seconds or as a date; back-off doubles with jitter, honours retry-after, and gives up past the cap', () => {
  assert.is(retryAfterMs('2'), 2000);
  assert.is(retryAfterMs('0.5'), 500);
  assert.is(retryAfterMs(new Date(10_000).toUTCString(), 7_000), 3000);
  assert.is(retryAfterMs('soon'), undefined);
  const policy = retryPolicy({ initialDelayMs: 100, maxDelayMs: 1000 }, { attempts: 3 });
  assert.equal(policy, { attempts: 3, initialDelayMs: 100, maxDelayMs: 1000 });
  assert.is(backoffMs(policy, 1, undefined, () => 0), 50);
  assert.is(backoffMs(policy, 1, undefined, () => 1), 100);
  assert.is(backoffMs(policy, 3, undefined, () => 1), 400);
  assert.is(backoffMs(policy, 9, undefined, () => 1), 1000, 'capped');
  assert.is(backoffMs(policy, 1, '0.8', () => 0), 800, 'at least what retry-after asks');
  assert.is(backoffMs(policy, 1, '5', () => 0), undefined, 'longer than the cap: the next target instead');
});

test('the top-level model of a body, whatever comes before it, never a nested one', () => {
  assert.is(modelOf('{"model":"gpt-5","messages":[]}'), 'gpt-5');
  assert.is(modelOf('{ "messages": [{"role":"user","content":"{\\"model\\": \\"evil\\"}", "model": "nested"}], "tools": {"model": "x"}, "model" : "claude-x" }'), 'claude-x');
  assert.is(modelOf('{"model":"a\\u0062c\\"d"}'), 'abc"d');
  assert.is(modelOf('{"messages":[]}'), undefined);
  assert.is(modelOf('{"model":7}'), undefined);
  assert.is(modelOf('[{"model":"x"}]'), undefined);
  assert.is(modelOf('{"x":"\\\\","model":"after-escaped-backslash"}'), 'after-escaped-backslash');
  assert.is(modelOf('{"model":"cheap-1","messages":[],"model":"expensive-9"}'), 'expensive-9', 'a repeated key routes as JSON.parse reads it, the last one');
  assert.is(modelOf('{"model":"cheap-1","messages":[{"content":"\\"model\\""}]}'), 'cheap-1', 'a "model" in a string after it: parsed, same answer');
  // Against JSON.parse on generated objects (a first `model` key, as JSON.parse would read a single one).
  fc.assert(
    fc.property(fc.dictionary(fc.string().filter((key) => key !== 'model'), fc.jsonValue(), { maxKeys: 5 }), fc.option(fc.string(), { nil: undefined }), (rest, model) => {
      const body = model === undefined ? rest : { ...rest, model };
      assert.is(modelOf(JSON.stringify(body)), model);
    }),
  );
});

test('routes in order, then the upstreams that list a model, then the default; weighted targets share a rank', () => {
  const router = createRouter({
    upstreams: { a: { format: 'anthropic', url: 'http://a' }, b: { format: 'ollama', url: 'http://b', models: ['llama3.2'] }, c: { format: 'gemini', url: 'http://c' } },
    routes: [
      { match: 'claude-*', targets: [{ upstream: 'a', weight: 3 }, { upstream: 'c', weight: 1 }, { upstream: 'b' }] },
      { match: 'llama3.2', targets: [{ upstream: 'c' }] },
    ],
    default: { targets: [{ upstream: 'c' }] },
  });
  assert.is(router.route('claude-x')?.name, 'claude-*');
  assert.is(router.route('llama3.2')?.name, 'llama3.2', 'a route wins over a list');
  assert.is(router.route('unknown')?.name, 'default');
  assert.is(router.single, undefined);
  assert.equal(router.models, ['llama3.2']);
  const route = router.route('claude-x')!;
  assert.equal(route.ranks.map((rank) => rank.map((target) => target.upstream)), [['a', 'c'], ['b']]);
  let firstA = 0;
  let seed = 1;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let index = 0; index < 4000; index++) {
    const order = targetOrder(route, random).map((target) => target.upstream);
    assert.is(order[2], 'b', 'the unweighted fallback stays last');
    if (order[0] === 'a') firstA++;
  }
  assert.ok(firstA > 2800 && firstA < 3200, `weight 3 against 1 puts a first about 3 times in 4 (${firstA} of 4000)`);
  const single = createRouter({ upstreams: { a: { format: 'anthropic', url: 'http://a' } }, routes: [{ match: '*', targets: [{ upstream: 'a' }] }] });
  assert.is(single.single?.name, '*', 'one catch-all route: the model need not be read');
});

test('warnings said out loud at start-up', () => {
  const warnings = gatewayWarnings(
    {
      upstreams: {
        claude: { format: 'anthropic', url: 'https://api.anthropic.com/v1' },
        openai: { format: 'openai-chat', url: 'https://api.openai.com', key: 'k' },
        local: { format: 'ollama', url: 'http://127.0.0.1:11434' },
        google: { format: 'gemini', url: 'https://generativelanguage.googleapis.com/v1beta', key: 'k' },
      },
    },
    '0.0.0.0',
  );
  assert.equal(warnings.length, 5, warnings.join('\n'));
  assert.match(warnings[0]!, /listening on 0\.0\.0\.0, which is not a loopback address, without an inbound token/);
  assert.match(warnings[1]!, /upstream "claude" \(anthropic\) has no key/);
  assert.match(warnings[2]!, /upstream "claude" has the url https:\/\/api\.anthropic\.com\/v1, and anthropic adds its own path to it: requests go to https:\/\/api\.anthropic\.com\/v1\/v1\/messages/);
  assert.match(warnings[3]!, /OpenAI's API root is https:\/\/api\.openai\.com\/v1/);
  assert.match(warnings[4]!, /requests go to https:\/\/generativelanguage\.googleapis\.com\/v1beta\/v1beta\/models\/MODEL:generateContent/);
  assert.equal(gatewayWarnings({ upstreams: { local: { format: 'ollama', url: 'http://127.0.0.1:11434' } }, inboundToken: 't' }, '0.0.0.0'), [], 'a token, and Ollama needs no key');
});

test.run();
