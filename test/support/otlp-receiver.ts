/**
 * An OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests: it accepts
 * `POST /v1/traces` and `POST /v1/metrics` in the JSON encoding (what the
 * official `exporter-*-otlp-http` packages send) and the protobuf one (the
 * `exporter-*-otlp-proto` packages'; decoded with the protobufjs decoders
 * generated from the OTLP protos that `@opentelemetry/otlp-transformer`
 * shipped until 0.57, installed as `otlp-transformer-protobuf`), and keeps
 * the spans and metric data points with their attributes read back from
 * OTLP's `AnyValue` shape.
 * @see https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';

interface ProtobufMessage {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: { longs: typeof String; enums: typeof Number; bytes: typeof String; defaults: boolean }): unknown;
}

interface OtlpProtos {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtobufMessage } }; metrics: { v1: { ExportMetricsServiceRequest: ProtobufMessage } } } } };
}

const protos = createRequire(import.meta.url)('otlp-transformer-protobuf/build/src/generated/root.js') as OtlpProtos;

/** A protobuf export request as the JSON encoding's object (ids in base64, 64-bit numbers as strings, enums as numbers). */
function decodeProtobuf(url: string, bytes: Uint8Array): unknown {
  const collector = protos.opentelemetry.proto.collector;
  const message = url === '/v1/traces' ? collector.trace.v1.ExportTraceServiceRequest : collector.metrics.v1.ExportMetricsServiceRequest;
  return message.toObject(message.decode(bytes), { longs: String, enums: Number, bytes: String, defaults: false });
}

/** An attribute value as OTLP JSON carries it. */
type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };

export type Attributes = Record<string, unknown>;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's enum: 2 SERVER, 3 CLIENT. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  status?: { code?: number; message?: string };
  resource: Attributes;
  scope: string;
}

export interface ReceivedPoint {
  metric: string;
  unit?: string;
  kind: 'histogram' | 'sum' | 'gauge' | 'other';
  attributes: Attributes;
  count?: number;
  sum?: number;
  bucketCounts?: number[];
  explicitBounds?: number[];
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Every data point of every export, in order (cumulative: the last of a series is its total). */
  points: ReceivedPoint[];
  /** Content types of the requests received. */
  contentTypes: string[];
  close(): Promise<void>;
}

function valueOf(value: AnyValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: { key: string; value?: AnyValue }[] | undefined): Attributes {
  const attributes: Attributes = {};
  for (const { key, value } of list ?? []) attributes[key] = valueOf(value);
  return attributes;
}

/** A trace or span id: hex in OTLP JSON (base64 from exporters that send protobuf's JSON mapping, converted). */
function idOf(id: string | undefined): string | undefined {
  if (id === undefined || id === '') return undefined;
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

interface TraceRequest {
  resourceSpans?: { resource?: { attributes?: { key: string; value?: AnyValue }[] }; scopeSpans?: { scope?: { name?: string }; spans?: Record<string, unknown>[] }[] }[];
}

interface MetricsRequest {
  resourceMetrics?: { scopeMetrics?: { metrics?: Record<string, unknown>[] }[] }[];
}

function takeTraces(body: TraceRequest, into: ReceivedSpan[]): void {
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        const parent = idOf(span['parentSpanId'] as string | undefined);
        into.push({
          traceId: idOf(span['traceId'] as string) ?? '',
          spanId: idOf(span['spanId'] as string) ?? '',
          ...(parent === undefined ? {} : { parentSpanId: parent }),
          name: span['name'] as string,
          kind: Number(span['kind']),
          startNs: BigInt(span['startTimeUnixNano'] as string),
          endNs: BigInt(span['endTimeUnixNano'] as string),
          attributes: attributesOf(span['attributes'] as { key: string; value?: AnyValue }[]),
          ...(span['status'] === undefined ? {} : { status: span['status'] as { code?: number; message?: string } }),
          resource,
          scope: scopeSpans.scope?.name ?? '',
        });
      }
    }
  }
}

function takeMetrics(body: MetricsRequest, into: ReceivedPoint[]): void {
  for (const resourceMetrics of body.resourceMetrics ?? []) {
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scopeMetrics.metrics ?? []) {
        const name = metric['name'] as string;
        const unit = metric['unit'] as string | undefined;
        const histogram = metric['histogram'] as { dataPoints?: Record<string, unknown>[] } | undefined;
        const sum = metric['sum'] as { dataPoints?: Record<string, unknown>[] } | undefined;
        const kind = histogram !== undefined ? 'histogram' : sum !== undefined ? 'sum' : metric['gauge'] !== undefined ? 'gauge' : 'other';
        for (const point of (histogram ?? sum ?? (metric['gauge'] as { dataPoints?: Record<string, unknown>[] } | undefined))?.dataPoints ?? []) {
          const received: ReceivedPoint = { metric: name, kind, attributes: attributesOf(point['attributes'] as { key: string; value?: AnyValue }[]) };
          if (unit !== undefined) received.unit = unit;
          if (point['count'] !== undefined) received.count = Number(point['count']);
          if (point['sum'] !== undefined) received.sum = Number(point['sum']);
          if (Array.isArray(point['bucketCounts'])) received.bucketCounts = (point['bucketCounts'] as (string | number)[]).map(Number);
          if (Array.isArray(point['explicitBounds'])) received.explicitBounds = (point['explicitBounds'] as number[]).map(Number);
          into.push(received);
        }
      }
    }
  }
}

/** Start a receiver on a free port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const sockets = new Set<Socket>();
  const state: OtlpReceiver = { url: '', spans: [], points: [], contentTypes: [], close: async () => {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = request.headers['content-type'] ?? '';
      state.contentTypes.push(type);
      const protobuf = type.startsWith('application/x-protobuf');
      if (request.method !== 'POST' || !(protobuf || type.startsWith('application/json'))) {
        response.writeHead(415, { 'content-type': 'application/json' });
        response.end('{}');
        return;
      }
      const bytes = Buffer.concat(chunks);
      const body = (protobuf ? decodeProtobuf(request.url ?? '', bytes) : JSON.parse(bytes.toString('utf8'))) as TraceRequest & MetricsRequest;
      if (request.url === '/v1/traces') takeTraces(body, state.spans);
      else if (request.url === '/v1/metrics') takeMetrics(body, state.points);
      // An empty export response: `{}` in JSON, no bytes in protobuf.
      response.writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' });
      response.end(protobuf ? '' : '{}');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return state;
}
