/**
 * The gateway: many upstreams behind one endpoint, routes by model,
 * fallbacks across vendors with the request converted to each, retries,
 * model lists and health. `createGateway(config)` is a fetch handler (Web
 * APIs only); `interlingua serve --config FILE` runs it on Node, loading the
 * same configuration from YAML or JSON (`interlingua/gateway/load`, Node).
 */
export { createGateway, createGatewayExchange, UPSTREAM_HEADER } from './gateway.ts';
export { validateGatewayConfig, type ConfigProblem } from './schema.ts';
export { gatewayWarnings } from './warnings.ts';
export { DEFAULT_RETRY, type GatewayConfig, type GatewayRoute, type GatewayTarget, type GatewayUpstream, type ReadinessSettings, type RetryPolicy, type RouteSettings } from './config.ts';
