/**
 * The spans of an OTLP trace export: an `ExportTraceServiceRequest` in the
 * OTLP/JSON encoding (what the collector's file exporter writes, one per
 * line, and what `otlp/http` JSON receivers take), `resourceSpans[] →
 * scopeSpans[] → spans[]`. proto3 JSON allows the field names in either
 * spelling (`resourceSpans` or `resource_spans`); older exporters wrote
 * `instrumentationLibrarySpans` for `scopeSpans`.
 * @see https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding
 * @see https://github.com/open-telemetry/opentelemetry-proto/blob/main/opentelemetry/proto/collector/trace/v1/trace_service.proto
 */
import { isObject, type JsonObject } from '../../core/wire.ts';

function listAt(object: JsonObject, ...keys: string[]): unknown[] {
  for (const key of keys) {
    const value = object[key];
    if (Array.isArray(value)) return value;
  }
  return [];
}

/** True when `value` is an `ExportTraceServiceRequest`. */
export function isTraceExport(value: unknown): value is JsonObject {
  return isObject(value) && (Array.isArray(value['resourceSpans']) || Array.isArray(value['resource_spans']));
}

/** Every span of a trace export, in order. */
export function spansOf(document: JsonObject): unknown[] {
  const spans: unknown[] = [];
  for (const resource of listAt(document, 'resourceSpans', 'resource_spans')) {
    if (!isObject(resource)) continue;
    for (const scope of listAt(resource, 'scopeSpans', 'scope_spans', 'instrumentationLibrarySpans')) {
      if (isObject(scope)) spans.push(...listAt(scope, 'spans'));
    }
  }
  return spans;
}

/** The spans of one line of an OTLP file, or `undefined` when the line is not a trace export (it is then read as any other line). */
export function otlpSpans(text: string): unknown[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isTraceExport(value) ? spansOf(value) : undefined;
}
