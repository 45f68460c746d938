/**
 * The record of an exchange whose reader decoded it into the IR itself (an
 * OTLP span, see `readers/otlp.ts`): nothing to parse or detect, the IR
 * written as it is, or encoded into the `--to` format (those losses keep IR
 * pointers, as for a reassembled stream). Nothing here does I/O.
 */
import { encodeError, encodeRequest, encodeResponse } from '../formats/convert.ts';
import { InterlinguaError } from '../core/errors.ts';
import type { Loss } from '../core/losses.ts';
import { reasonOf } from './failure.ts';
import type { DecodedExchange, ErrorRecord, Exchange, LossSide, NormalizedRecord, Outcome, RecordLoss, RecordSource, Target } from './types.ts';

function sided(losses: readonly Loss[], side: LossSide, into: RecordLoss[]): void {
  for (const loss of losses) into.push({ ...loss, side });
}

function bodies(decoded: DecodedExchange, to: Target, model: string | undefined, losses: RecordLoss[]): { request?: unknown; response?: unknown; error?: unknown } {
  if (to === 'ir') {
    return {
      ...(decoded.request === undefined ? {} : { request: decoded.request }),
      ...(decoded.response === undefined ? {} : { response: decoded.response }),
      ...(decoded.error === undefined ? {} : { error: decoded.error }),
    };
  }
  const options = model === undefined ? {} : { model };
  const out: { request?: unknown; response?: unknown; error?: unknown } = {};
  if (decoded.request !== undefined) {
    const encoded = encodeRequest(to, decoded.request, options);
    sided(encoded.losses, 'request', losses);
    out.request = encoded.body;
  }
  if (decoded.response !== undefined) {
    const encoded = encodeResponse(to, decoded.response, options);
    sided(encoded.losses, 'response', losses);
    out.response = encoded.body;
  }
  if (decoded.error !== undefined) {
    const encoded = encodeError(to, decoded.error, options);
    sided(encoded.losses, 'error', losses);
    out.error = encoded.body;
  }
  return out;
}

/** The record (or error line) of an exchange that carries its IR. */
export function decodedOutcome(exchange: Exchange, decoded: DecodedExchange, identity: { id: string; source: RecordSource }, to: Target): Outcome {
  try {
    if (decoded.request === undefined && decoded.response === undefined && decoded.error === undefined) {
      throw new InterlinguaError('missing_field', 'the span records no messages, no output and no error');
    }
    const losses: RecordLoss[] = [...decoded.losses];
    const model = decoded.request?.model ?? decoded.response?.model;
    const record: NormalizedRecord = {
      id: identity.id,
      source: identity.source,
      format: decoded.format,
      formatEvidence: decoded.evidence,
      ...(model === undefined ? {} : { model }),
      to,
      ...bodies(decoded, to, model, losses),
      losses,
      ...(exchange.status === undefined ? {} : { status: exchange.status }),
      ...(exchange.timing === undefined ? {} : { timing: exchange.timing }),
    };
    // The IR beside the record, for the flat columns of Parquet output.
    const ir = { ...(decoded.request === undefined ? {} : { request: decoded.request }), ...(decoded.response === undefined ? {} : { response: decoded.response }), ...(decoded.error === undefined ? {} : { error: decoded.error }) };
    return { kind: 'record', record, ir, ...(decoded.request?.model === undefined ? {} : { requested: decoded.request.model }) };
  } catch (error) {
    const record: ErrorRecord = { id: identity.id, source: identity.source, reason: reasonOf(error), format: decoded.format };
    if (exchange.status !== undefined) record.status = exchange.status;
    return { kind: 'error', error: record };
  }
}
