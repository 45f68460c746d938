/** Who may use the stateful endpoints: the inbound-token rule of the layer below, answered in the Responses error shape. */
import { callerCredential, constantTimeEqual, TOKEN_HEADER } from '../proxy/auth.ts';
import { errorAnswer } from '../proxy/errors.ts';
import type { Answer, Inbound } from '../proxy/exchange.ts';

/**
 * Where a caller presents the token: `token-header` only in
 * `x-interlingua-token` (a proxy whose callers' own vendor keys go
 * upstream), `either` there or in its SDK's key header (a proxy holding the
 * vendor key; see `ProxyConfig.inboundToken`), `key-header` in the SDK's key
 * header (the gateway's rule).
 */
export type TokenPlace = 'token-header' | 'either' | 'key-header';

/** The check of `token` (none: everyone is admitted). */
export function tokenAdmitter(token: string | undefined, place: TokenPlace): (request: Inbound) => Answer | undefined {
  const presented = (request: Inbound): string | null | undefined => {
    switch (place) {
      case 'token-header':
        return request.header(TOKEN_HEADER);
      case 'either':
        return request.header(TOKEN_HEADER) ?? callerCredential(request);
      case 'key-header':
        return callerCredential(request);
    }
  };
  return (request) => {
    if (token === undefined) return undefined;
    return constantTimeEqual(presented(request) ?? '', token) ? undefined : errorAnswer('openai-responses', { type: 'authentication', message: 'missing or wrong proxy token' });
  };
}
