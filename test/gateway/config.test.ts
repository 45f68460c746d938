/**
 * The gateway's configuration file: the issue's example loads as written,
 * and every kind of mistake is refused with the file, the line, the path
 * and what to write instead (one row per kind).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseGatewayConfig } from '../../src/gateway/load.ts';
import { validateGatewayConfig } from '../../src/gateway/schema.ts';

const ENV = { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-test' };

/** The example of issue 40, as written there. */
export const ISSUE_EXAMPLE = `upstreams:
  anthropic: { format: anthropic, url: https://api.anthropic.com, key: "\${ANTHROPIC_API_KEY}" }
  bedrock:   { format: bedrock-converse, region: us-east-1 }
  openai:    { format: openai-chat, url: https://api.openai.com/v1, key: "\${OPENAI_API_KEY}" }
routes:
  - match: "claude-*"
    targets:
      - upstream: anthropic
      - upstream: bedrock
        model: us.anthropic.claude-sonnet-4-5-20250929-v1:0
  - match: "gpt-*"
    targets:
      - upstream: openai
`;

test('the example of issue 40 loads as written, keys read from the environment', () => {
  const config = parseGatewayConfig(ISSUE_EXAMPLE, 'gateway.yaml', ENV);
  assert.equal(config.upstreams['anthropic'], { format: 'anthropic', url: 'https://api.anthropic.com', key: 'sk-ant-test' });
  assert.equal(config.upstreams['bedrock'], { format: 'bedrock-converse', region: 'us-east-1' });
  assert.equal(config.routes?.[0]?.targets[1], { upstream: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' });
  assert.equal(config.routes?.[1], { match: 'gpt-*', targets: [{ upstream: 'openai' }] });
});

test('JSON loads through the same parser, and $$ writes a dollar', () => {
  const json = JSON.stringify({ upstreams: { local: { format: 'ollama', url: 'http://127.0.0.1:11434', headers: { 'x-note': 'costs $$5 ${NOTE}' }, models: ['llama3.2'] } } }, null, 2);
  const config = parseGatewayConfig(json, 'gateway.json', { NOTE: 'a day' });
  assert.equal(config.upstreams['local']?.headers, { 'x-note': 'costs $5 a day' });
});

/** One kind of mistake: the file, and what the message must say (with the line it must name). */
interface Mistake {
  name: string;
  file: string;
  env?: Record<string, string>;
  line: number;
  says: RegExp[];
}

const UPSTREAM = 'upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1, key: k }\n';
const ROUTE = 'routes:\n  - match: "gpt-*"\n    targets: [{ upstream: openai }]\n';

const MISTAKES: Mistake[] = [
  { name: 'not YAML', file: 'upstreams:\n  openai: {format: anthropic}}\n', line: 2, says: [/Unexpected flow-map-end token.*; the file must be YAML or JSON/] },
  { name: 'a tab for indentation', file: 'upstreams:\n\topenai: 1\n', line: 2, says: [/Tabs are not allowed as indentation/] },
  { name: 'a key twice', file: `${UPSTREAM}${ROUTE}routes: []\n`, line: 6, says: [/a key appears twice/] },
  { name: 'not a mapping', file: '- upstreams\n', line: 1, says: [/the configuration must be a mapping \(key: value\) with upstreams and routes, got a list/] },
  { name: 'an unknown top-level key', file: `upstream:\n  openai: { format: openai-chat }\n${ROUTE}`, line: 1, says: [/unknown key "upstream" in the configuration \(did you mean "upstreams"\?\)/, /the keys of the configuration are upstreams, routes/] },
  { name: 'no upstreams', file: ROUTE, line: 1, says: [/the configuration needs upstreams; write it like upstreams: \{ anthropic:/] },
  { name: 'an unknown format', file: `upstreams:\n  openai: { format: openai, url: https://api.openai.com/v1 }\n${ROUTE}`, line: 2, says: [/upstreams\.openai\.format: format "openai" is not a wire format \(did you mean "openai-chat"\?\); write one of anthropic, openai-chat/] },
  { name: 'no format', file: `upstreams:\n  openai: { url: https://api.openai.com/v1 }\n${ROUTE}`, line: 2, says: [/an upstream needs format; write it like format: anthropic/] },
  { name: 'an unknown upstream key', file: `upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1, api_key: k }\n${ROUTE}`, line: 2, says: [/upstreams\.openai\.api_key: unknown key "api_key" in an upstream/, /format, url, key/] },
  { name: 'no url', file: `upstreams:\n  claude: { format: anthropic, key: k }\nroutes:\n  - match: "*"\n    targets: [{ upstream: claude }]\n`, line: 2, says: [/upstream "claude" has no url; write the API root its SDK uses, like url: https:\/\/api\.anthropic\.com/] },
  { name: 'a url that is no URL', file: `upstreams:\n  openai: { format: openai-chat, url: api.openai.com/v1, key: k }\n${ROUTE}`, line: 2, says: [/upstreams\.openai\.url: url "api\.openai\.com\/v1" is not an http\(s\) URL; write it like https:\/\/api\.openai\.com\/v1/] },
  { name: 'an unset environment variable', file: `upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1, key: "\${NOT_SET_KEY}" }\n${ROUTE}`, line: 2, says: [/upstreams\.openai\.key: the environment variable NOT_SET_KEY is not set/] },
  { name: 'a malformed reference', file: `upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1, key: "\${1KEY}" }\n${ROUTE}`, line: 2, says: [/"\$\{1KEY\}" is not an environment variable reference; write \$\{NAME\}/] },
  { name: 'a target naming no upstream', file: `${UPSTREAM}routes:\n  - match: "gpt-*"\n    targets:\n      - upstream: opena\n`, line: 6, says: [/routes\[0\]\.targets\[0\]\.upstream: no upstream is named "opena" \(did you mean "openai"\?\); the upstreams are openai/] },
  { name: 'a route without targets', file: `${UPSTREAM}routes:\n  - match: "gpt-*"\n    targets: []\n`, line: 5, says: [/routes\[0\]\.targets: targets must name at least one upstream/] },
  { name: 'a route without match', file: `${UPSTREAM}routes:\n  - targets: [{ upstream: openai }]\n`, line: 4, says: [/routes\[0\]\.match: a route needs match; write it like match: "claude-\*"/] },
  { name: 'a duration as text', file: `${UPSTREAM}${ROUTE}timeoutMs: 30s\n`, line: 6, says: [/timeoutMs: timeoutMs must be a number, like 120000/] },
  { name: 'no attempt', file: `${UPSTREAM}${ROUTE}retry: { attempts: 0 }\n`, line: 6, says: [/retry\.attempts: attempts must be at least 1/] },
  { name: 'a region off Bedrock', file: `upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1, key: k, region: us-east-1 }\n${ROUTE}`, line: 2, says: [/upstreams\.openai\.region: region is for a bedrock-converse upstream/] },
  { name: 'a region that is none', file: `upstreams:\n  aws: { format: bedrock-converse, region: US East }\nroutes:\n  - match: "*"\n    targets: [{ upstream: aws }]\n`, line: 2, says: [/"US East" is not an AWS region name; write it like us-east-1/] },
  { name: 'an unknown dialect', file: `upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1, key: k, dialect: deepsek }\n${ROUTE}`, line: 2, says: [/unknown dialect "deepsek" for openai-chat; write one of .*deepseek.*\(did you mean "deepseek"\?\)/] },
  { name: 'a key and pass-through', file: `upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1, key: k, passThroughAuth: true }\n${ROUTE}`, line: 2, says: [/a key or passThroughAuth, not both/] },
  { name: 'nothing routed', file: UPSTREAM, line: 1, says: [/nothing routes to an upstream; add routes/] },
  { name: 'an upstream name with a space', file: `upstreams:\n  "open ai": { format: openai-chat, url: https://api.openai.com/v1, key: k }\n${ROUTE}`, line: 2, says: [/an upstream name may hold letters, digits/] },
  { name: 'a port out of range', file: `${UPSTREAM}${ROUTE}listen: { port: 70000 }\n`, line: 6, says: [/listen\.port: port must be at most 65535/] },
  { name: 'a weight below zero', file: `${UPSTREAM}routes:\n  - match: "*"\n    targets: [{ upstream: openai, weight: -1 }]\n`, line: 5, says: [/weight must not be negative/] },
  { name: 'a header value with a line break', file: `upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1, key: k, headers: { x-a: "1\\r\\nx-b: 2" } }\n${ROUTE}`, line: 2, says: [/a header value must not hold CR, LF or NUL/] },
  { name: 'a JSON file', file: '{\n  "upstreams": {\n    "openai": { "format": "openai-chat", "url": "https://api.openai.com/v1", "key": "k", "timeout": 5 }\n  },\n  "default": { "targets": [{ "upstream": "openai" }] }\n}\n', line: 3, says: [/upstreams\.openai\.timeout: unknown key "timeout" in an upstream \(did you mean "timeoutMs"\?\)/] },
];

for (const mistake of MISTAKES) {
  test(`a config with ${mistake.name} is refused with the line and what to write`, () => {
    let error: unknown;
    try {
      parseGatewayConfig(mistake.file, 'gateway.yaml', mistake.env ?? ENV);
    } catch (caught) {
      error = caught;
    }
    assert.instance(error, ConfigError, 'refused');
    const message = (error as ConfigError).message;
    assert.ok(message.includes(`gateway.yaml:${mistake.line}:`), `names line ${mistake.line}: ${message}`);
    for (const says of mistake.says) assert.match(message, says);
  });
}

test('a mistake in a config object given to the library is found by the same schema', () => {
  const result = validateGatewayConfig({ upstreams: { a: { format: 'anthropic', url: 'https://api.anthropic.com' } }, routes: [{ match: '*', targets: [{ upstream: 'b' }] }] });
  assert.equal(result.problems, [{ path: ['routes', 0, 'targets', 0, 'upstream'], message: 'no upstream is named "b"; the upstreams are a' }]);
});

test.run();
