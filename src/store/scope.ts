/**
 * Keys scoped to a caller: every entry a caller's request writes is under a
 * hash of the credential it presented, so a second credential cannot read,
 * delete or chain it (and learns nothing from trying: the id is simply not
 * there). Callers of a proxy that holds the vendor key itself and takes no
 * inbound token all present no credential, and share one scope.
 */

/** The scope of a credential: the first 16 bytes of its SHA-256, as hex (`anonymous` for none). */
export async function credentialScope(credential: string | undefined): Promise<string> {
  if (credential === undefined || credential === '') return 'anonymous';
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(credential));
  let hex = '';
  for (const byte of new Uint8Array(digest, 0, 16)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** A store key: `interlingua:<kind>:<scope>:<id>`. */
export function scopedKey(kind: string, scope: string, id: string): string {
  return `interlingua:${kind}:${scope}:${id}`;
}
