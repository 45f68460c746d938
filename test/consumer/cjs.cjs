// CommonJS consumer: `require` of the ES module package (Node >= 20.19 loads ES modules from require).
const { readFileSync } = require('node:fs');
const interlingua = require('interlingua');
const proxy = require('interlingua/proxy');

const [requestPath] = process.argv.slice(2);
const request = JSON.parse(readFileSync(requestPath, 'utf8'));
const { body, losses } = interlingua.convertRequest(request, { from: 'openai-chat', to: 'anthropic' });
let unknown;
try {
  interlingua.convertRequest(request, { from: 'openai-chat', to: 'cohere' });
} catch (error) {
  unknown = { isInterlinguaError: error instanceof interlingua.InterlinguaError, code: error.code };
}
console.log(
  JSON.stringify({
    types: { convertRequest: typeof interlingua.convertRequest, convertStream: typeof interlingua.convertStream, createProxy: typeof proxy.createProxy },
    handler: typeof proxy.createProxy({ upstream: { format: 'anthropic', baseUrl: 'http://127.0.0.1:9' }, env: {} }),
    body,
    losses,
    unknown,
  }),
);
