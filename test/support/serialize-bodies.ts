/** Anthropic requests with a large base64 image (and a PDF), for the serialiser tests. */
export function proxyBodies(): { name: string; text: string }[] {
  // Base64 of deterministic bytes, long enough (over 64 KiB) to be spliced.
  const bytes = new Uint8Array(96 * 1024);
  for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 7919) & 0xff;
  const data = Buffer.from(bytes).toString('base64');
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data } };
  const pdf = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } };
  const request = (content: unknown[]) => JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content }] });
  return [
    { name: 'one image', text: request([image, { type: 'text', text: 'What is in "this" image?' }]) },
    { name: 'two images and a PDF', text: request([image, { type: 'text', text: 'and' }, image, pdf]) },
  ];
}
