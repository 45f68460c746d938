/**
 * The gateway's rows of the proxy benchmark: two `serve --config` files in
 * front of the benchmark's upstream. "Routed": three upstreams of other
 * formats and four routes, the request's model (`bench-model`) matching the
 * last, whose one target is the scenario's upstream, so the conversion is
 * the bare `serve`'s and the rest is the config path's cost. "Fallback hop":
 * the primary (an Anthropic upstream at `/overloaded`, where
 * upstream-child.mjs answers 529 `overloaded_error`) fails, the second
 * target (the scenario's upstream) answers, with no back-off (one attempt
 * per target), so the row is the cost of one failed attempt and its error
 * body, converted nowhere.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { FormatId } from '../../src/core/ir.ts';

/** The API root the benchmark's upstream serves `format` at. */
function root(format: FormatId, port: number): string {
  return format === 'openai-chat' || format === 'openai-responses' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
}

/** Write both config files; their paths. */
export function gatewayConfigs(target: FormatId, port: number): { routed: string; fallback: string } {
  const routed = `upstreams:
  anthropic: { format: anthropic, url: ${root('anthropic', port)}, key: bench }
  openai:    { format: openai-chat, url: ${root('openai-chat', port)}, key: bench }
  gemini:    { format: gemini, url: ${root('gemini', port)}, key: bench }
  target:    { format: ${target}, url: ${root(target, port)}, key: bench }
routes:
  - { match: "claude-*", targets: [{ upstream: anthropic }, { upstream: gemini, model: gemini-2.5-pro }] }
  - { match: "gemini-*", targets: [{ upstream: gemini }] }
  - { match: "gpt-*", targets: [{ upstream: openai }] }
  - { match: "bench-*", targets: [{ upstream: target }, { upstream: anthropic }] }
`;
  const fallback = `upstreams:
  overloaded: { format: anthropic, url: http://127.0.0.1:${port}/overloaded, key: bench }
  target:     { format: ${target}, url: ${root(target, port)}, key: bench }
routes:
  - { match: "*", targets: [{ upstream: overloaded }, { upstream: target }], retry: { attempts: 1 } }
`;
  const files = { routed: join(tmpdir(), `interlingua-bench-routed-${process.pid}.yaml`), fallback: join(tmpdir(), `interlingua-bench-fallback-${process.pid}.yaml`) };
  writeFileSync(files.routed, routed);
  writeFileSync(files.fallback, fallback);
  return files;
}
