// The proxy as a Cloudflare Worker: `fetch` is createProxy's handler, built
// once per isolate from the bindings (the upstream's address).
import { createProxy } from 'interlingua/proxy';

let proxy;

export default {
  fetch(request, env) {
    proxy ??= createProxy({ upstream: { format: 'anthropic', baseUrl: env.UPSTREAM_URL, apiKey: env.UPSTREAM_KEY }, modelMap: { '*': 'claude-opus-4-8' }, env });
    return proxy(request);
  },
};
