/**
 * The proxy's metrics for `GET /metrics`: the GenAI client metrics of the
 * OpenTelemetry conventions under their Prometheus names (dots become
 * underscores, seconds get their `_seconds` suffix, as the OpenTelemetry
 * Prometheus exporter names them), and interlingua's own counters of
 * requests, losses by code and streams that ended with an error event.
 */
import { MetricsRegistry } from './metrics.ts';
import type { RequestRecord, TelemetrySink } from './record.ts';
import { DURATION_BUCKETS, errorType, FIRST_CHUNK_BUCKETS, providerName, TOKEN_BUCKETS } from './semconv.ts';

/** A registry with the proxy's metrics, and the sink that counts each finished request into it. */
export interface RequestMetrics extends TelemetrySink {
  readonly registry: MetricsRegistry;
  /** The registry in the Prometheus text format. */
  render(): string;
}

const GENAI_LABELS = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'] as const;

/** Make the proxy's metrics. */
export function createRequestMetrics(): RequestMetrics {
  const registry = new MetricsRegistry();
  const duration = registry.histogram('gen_ai_client_operation_duration_seconds', 'GenAI operation duration (a stream to its end).', [...GENAI_LABELS, 'error_type'], DURATION_BUCKETS);
  const tokens = registry.histogram('gen_ai_client_token_usage', 'Number of input and output tokens used.', [...GENAI_LABELS, 'gen_ai_token_type'], TOKEN_BUCKETS);
  const firstChunk = registry.histogram('gen_ai_client_operation_time_to_first_chunk_seconds', 'Time to the first chunk of a streamed answer that ended well.', GENAI_LABELS, FIRST_CHUNK_BUCKETS);
  const requests = registry.counter('interlingua_requests_total', 'Requests by ingress format, upstream format and status.', ['ingress', 'upstream', 'status']);
  const losses = registry.counter('interlingua_losses_total', 'Losses the conversions reported, by code.', ['code']);
  const streamErrors = registry.counter('interlingua_stream_errors_total', 'Streamed answers that ended with an error event.', ['ingress', 'upstream']);
  return {
    registry,
    render: () => registry.render(),
    record(record: RequestRecord) {
      const ingress = record.ingress ?? '';
      requests.add([ingress, record.upstream, String(record.status)]);
      if (record.lossCodes !== undefined) for (const code of record.lossCodes) losses.add([code]);
      if (record.streamError === true) streamErrors.add([ingress, record.upstream]);
      if (record.operation === undefined) return;
      const answered = record.attempts?.at(-1);
      const labels = [record.operation, providerName(answered?.format ?? record.upstream, answered?.dialect), record.upstreamModel ?? record.model ?? ''];
      const error = errorType(record.status, record.streamError);
      duration.observe([...labels, error ?? ''], record.durationMs / 1000);
      if (record.stream && record.firstByteMs !== undefined && error === undefined) firstChunk.observe(labels, record.firstByteMs / 1000);
      const usage = record.usage;
      if (usage?.inputTokens !== undefined) tokens.observe([...labels, 'input'], usage.inputTokens);
      if (usage?.outputTokens !== undefined) tokens.observe([...labels, 'output'], usage.outputTokens);
    },
  };
}
