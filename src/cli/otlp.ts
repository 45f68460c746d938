/**
 * OTLP/HTTP export for `interlingua serve`, with the official OpenTelemetry
 * SDK packages: a tracer provider with a batch span processor and a meter
 * provider with a periodic reader, each exporting OTLP/HTTP in the protobuf
 * encoding (the default) or the JSON one, registered as the global providers that the proxy's spans and
 * metrics go through (`src/telemetry/otel.ts`). Loaded only when `serve` is
 * asked to export (`--otlp-endpoint`, or an `OTEL_EXPORTER_OTLP_*ENDPOINT`
 * variable): nothing here is imported otherwise.
 * @see https://opentelemetry.io/docs/specs/otel/protocol/exporter/
 */
import { metrics, propagation, trace } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';

/** The OTLP protocols `serve` exports with: OTLP/HTTP with the protobuf encoding (the specification's default) or the JSON one. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What `serve` was asked to export, and where. */
export interface OtlpOptions {
  /** `--otlp-endpoint`: the collector's base URL (`/v1/traces` and `/v1/metrics` are added), over the variables. */
  endpoint?: string;
  /** How often metrics are exported, in ms (`OTEL_METRIC_EXPORT_INTERVAL`, default 60,000). */
  metricIntervalMs?: number;
  /** The protocol of each signal (see {@link otlpProtocols}). */
  protocols: { traces: OtlpProtocol; metrics: OtlpProtocol };
  env: Record<string, string | undefined>;
}

/** The running export: `shutdown` flushes what is pending and stops. */
export interface OtlpExport {
  shutdown(): Promise<void>;
}

/** A signal's URL under a base endpoint, as the OTLP exporter specification joins them. */
function signalUrl(base: string, signal: 'traces' | 'metrics'): string {
  return `${base.endsWith('/') ? base : `${base}/`}v1/${signal}`;
}

/** The span exporter of `protocol`, its package loaded only when chosen. */
async function spanExporter(protocol: OtlpProtocol, url: string | undefined): Promise<SpanExporter> {
  const options = url === undefined ? {} : { url };
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
}

/** The metric exporter of `protocol`, its package loaded only when chosen. */
async function metricExporter(protocol: OtlpProtocol, url: string | undefined): Promise<PushMetricExporter> {
  const options = url === undefined ? {} : { url };
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(options);
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(options);
}

/**
 * Start exporting. With `endpoint`, both signals go under it; without it,
 * the exporters read `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT` and the rest
 * themselves. The resource's `service.name` is `OTEL_SERVICE_NAME`, else
 * `interlingua`; `OTEL_RESOURCE_ATTRIBUTES` adds to it. `OTEL_TRACES_EXPORTER=none` or
 * `OTEL_METRICS_EXPORTER=none` turns one signal off. W3C Trace Context and
 * Baggage are the propagators (the specification's default), so a caller's
 * `traceparent` is the parent of the request's span and the span's own goes
 * upstream; `OTEL_PROPAGATORS=none` turns that off.
 */
export async function startOtlp(options: OtlpOptions): Promise<OtlpExport> {
  const env = options.env;
  // The SDK's defaults, then interlingua's name, then what OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES say.
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'interlingua' })).merge(detectResources({ detectors: [envDetector] }));
  const stops: (() => Promise<void>)[] = [];
  if (env['OTEL_PROPAGATORS']?.trim() !== 'none') propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  if (env['OTEL_TRACES_EXPORTER']?.trim() !== 'none') {
    const exporter = await spanExporter(options.protocols.traces, options.endpoint === undefined ? undefined : signalUrl(options.endpoint, 'traces'));
    const provider = new TracerProvider({ resource, spanProcessors: [new BatchSpanProcessor({ exporter })] });
    trace.setGlobalTracerProvider(provider);
    stops.push(() => provider.shutdown());
  }
  if (env['OTEL_METRICS_EXPORTER']?.trim() !== 'none') {
    const exporter = await metricExporter(options.protocols.metrics, options.endpoint === undefined ? undefined : signalUrl(options.endpoint, 'metrics'));
    const interval = options.metricIntervalMs ?? (Number(env['OTEL_METRIC_EXPORT_INTERVAL']) || 60_000);
    const provider = new MeterProvider({ resource, readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: interval, exportTimeoutMillis: Math.min(interval, 30_000) })] });
    metrics.setGlobalMeterProvider(provider);
    stops.push(() => provider.shutdown());
  }
  return {
    async shutdown() {
      await Promise.allSettled(stops.map((stop) => stop()));
    },
  };
}
