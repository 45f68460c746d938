/** JSON pointers in test bodies. */

/** Follow a JSON pointer in `body`; `false` when some segment does not exist. */
export function resolves(body: unknown, path: string): boolean {
  if (path === '') return true;
  if (!path.startsWith('/')) return false;
  let node: unknown = body;
  for (const raw of path.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= node.length) return false;
      node = node[Number(segment)];
    } else if (typeof node === 'object' && node !== null && Object.hasOwn(node, segment)) {
      node = (node as Record<string, unknown>)[segment];
    } else {
      return false;
    }
  }
  return true;
}
