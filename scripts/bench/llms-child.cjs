/**
 * Child process of the proxy benchmark: `@musistudio/llms` (the server
 * claude-code-router runs) in front of the fake upstream, configured as
 * claude-code-router configures it: one provider per upstream, models named
 * "provider,model". Its ESM build cannot load (a bundled dynamic require of
 * child_process), so this loads the CommonJS one.
 *
 * Usage: node llms-child.cjs UPSTREAM_ORIGIN PORT
 * Prints "proxy listening on http://127.0.0.1:PORT" like `interlingua serve`.
 */
const { default: Server } = require('@musistudio/llms');

const [upstream, port] = process.argv.slice(2);
const server = new Server({
  initialConfig: {
    providers: [{ name: 'bench', api_base_url: `${upstream}/v1/chat/completions`, api_key: 'bench-key', models: ['bench-model'] }],
    HOST: '127.0.0.1',
    PORT: Number(port),
    LOG: false,
  },
});
Promise.resolve(server.start()).then(() => process.stderr.write(`llms: proxy listening on http://127.0.0.1:${port}\n`));
process.on('SIGTERM', () => process.exit(0));
