/**
 * Random IR conversations, requests and responses, limited to what each
 * format can carry (`ir-capabilities.ts`).
 */
import fc from 'fast-check';
import type { CacheBreakpoint, Candidate, FormatId, Generation, Message, Part, ReasoningState, Request as IrRequest, Response as IrResponse, Tool, ToolCallPart } from '../../../src/core/ir.ts';
import { type Capability, CAPABILITIES, textArbitrary, mediaArbitrary, argumentsArbitrary, toolName } from './ir-capabilities.ts';

interface Draft {
  format: FormatId;
  capability: Capability;
  calls: number;
  /** Building a request's history: OpenAI Responses sends another turn's refusal there as text (an input message has no refusal part). */
  request?: boolean;
}

/** Text for a message of `draft`: Converse refuses blank text blocks in requests (its encoder leaves them out, reported), though its answers may hold them. */
function messageText(draft: Draft, options: { empty: boolean; huge?: boolean }): fc.Arbitrary<string> {
  const any = textArbitrary(options);
  return draft.format === 'bedrock-converse' && draft.request === true ? any.filter((value) => value.trim() !== '') : any;
}

function textPart(draft: Draft): fc.Arbitrary<Part> {
  const text = messageText(draft, { empty: draft.capability.emptyText, huge: true });
  const lifetimes = draft.capability.cacheLifetimes;
  if (lifetimes === undefined || draft.request !== true) return text.map((value): Part => ({ type: 'text', text: value }));
  // Now and then a prompt-cache breakpoint after the text, with or without a lifetime.
  const cache = fc.option(fc.constantFrom<CacheBreakpoint>({}, ...lifetimes.map((ttl) => ({ ttl }))), { nil: undefined, freq: 3 });
  return fc.tuple(text, cache).map(([value, breakpoint]): Part => (breakpoint === undefined ? { type: 'text', text: value } : { type: 'text', text: value, cache: breakpoint }));
}

function userMessage(draft: Draft): fc.Arbitrary<Message> {
  const media = draft.capability.userMedia.map((kind) => mediaArbitrary(draft.format, kind));
  if (draft.capability.oneText === true) {
    // One content string, then the images, as the wire spells them.
    const images = media.length === 0 ? fc.constant([]) : fc.array(fc.oneof(...media), { maxLength: 2 });
    return fc.tuple(textPart(draft), images).map(([text, rest]): Message => ({ role: 'user', parts: [text, ...rest] }));
  }
  const part = media.length === 0 ? textPart(draft) : fc.oneof({ arbitrary: textPart(draft), weight: 3 }, ...media.map((arbitrary) => ({ arbitrary, weight: 1 })));
  return fc.array(part, { minLength: 1, maxLength: 3 }).map((parts): Message => ({ role: 'user', parts }));
}

/**
 * Vendor blocks kept whole as opaque parts (built-in tool calls and results):
 * known to their format, so a same-format trip reports no loss. Chat has
 * none it knows (an unknown block is an `unknown_block` loss by design).
 */
const OPAQUE_TEXT = fc.string({ unit: 'binary', maxLength: 20 });
const ANTHROPIC_SUFFIX = fc.stringMatching(/^[A-Za-z0-9]{6,12}$/);
const RESPONSES_SUFFIX = fc.stringMatching(/^[a-f0-9]{8,16}$/);
const REASONING_STATE = fc.stringMatching(/^[A-Za-z0-9+/]{8,40}$/);
const CALL_SUFFIX = fc.stringMatching(/^[A-Za-z0-9]{4,12}$/);
const REASONING_ID = fc.stringMatching(/^rs_[a-z0-9]{6}$/);

function opaquePart(draft: Draft): fc.Arbitrary<Part> | undefined {
  const text = OPAQUE_TEXT;
  const opaque = (blockType: string, value: unknown): Part => ({ type: 'opaque', format: draft.format, blockType, value });
  switch (draft.format) {
    case 'anthropic':
      return fc.record({ suffix: ANTHROPIC_SUFFIX, query: text, url: fc.constantFrom('https://example.com/', 'https://example.org/a?b=1') }).chain(({ suffix, query, url }) =>
        fc.constantFrom(
          opaque('server_tool_use', { type: 'server_tool_use', id: `srvtoolu_${suffix}`, name: 'web_search', input: { query } }),
          opaque('web_search_tool_result', { type: 'web_search_tool_result', tool_use_id: `srvtoolu_${suffix}`, content: [{ type: 'web_search_result', title: query, url, encrypted_content: 'Ev4BCkYIBRgCKkA', page_age: null }] }),
        ),
      );
    case 'openai-responses':
      return fc.record({ suffix: RESPONSES_SUFFIX, query: text }).map(({ suffix, query }) =>
        opaque('web_search_call', { type: 'web_search_call', id: `ws_${suffix}`, status: 'completed', action: { type: 'search', query } }),
      );
    case 'gemini':
      return fc.record({ code: text, output: text }).chain(({ code, output }) =>
        fc.constantFrom(opaque('executableCode', { executableCode: { language: 'PYTHON', code } }), opaque('codeExecutionResult', { codeExecutionResult: { outcome: 'OUTCOME_OK', output } })),
      );
    case 'bedrock-converse':
      return text.map((value) => opaque('guardContent', { guardContent: { text: { text: value } } }));
    case 'openai-chat':
    case 'ollama':
      return undefined;
  }
}

function reasoningPart(draft: Draft): fc.Arbitrary<Part> | undefined {
  const kind = draft.capability.reasoning;
  if (kind === undefined) return undefined;
  const state = REASONING_STATE.map((value): ReasoningState => ({ format: draft.format, kind, value }));
  const text = textArbitrary({ empty: false });
  if (draft.format === 'openai-responses') {
    // Responses reasoning items: an id, summaries, and encrypted content; no visible text.
    return fc.record({ id: REASONING_ID, summary: fc.array(text, { minLength: 1, maxLength: 2 }), state }).map(({ id, summary, state: value }): Part => ({ type: 'reasoning', text: '', summary, state: value, id }));
  }
  return fc.record({ text, state }).map(({ text: value, state: signature }): Part => ({ type: 'reasoning', text: value, state: signature }));
}

interface AssistantTurn {
  message: Message;
  calls: ToolCallPart[];
}

function assistantTurn(draft: Draft, allowCalls: boolean): fc.Arbitrary<AssistantTurn> {
  const reasoning = reasoningPart(draft);
  const builtIn = opaquePart(draft);
  const call = fc.record({ name: toolName, args: argumentsArbitrary, suffix: CALL_SUFFIX });
  return fc
    .record({
      reasoning: reasoning === undefined ? fc.constant(undefined) : fc.option(reasoning, { nil: undefined }),
      builtIn: builtIn === undefined ? fc.constant([]) : fc.array(builtIn, { maxLength: 2 }),
      text: fc.option(messageText(draft, { empty: false, huge: true }), { nil: undefined }),
      refusal: draft.capability.refusal && !(draft.request === true && draft.format === 'openai-responses') ? fc.option(textArbitrary({ empty: false }), { nil: undefined, freq: 8 }) : fc.constant(undefined),
      calls: fc.array(call, { maxLength: allowCalls ? 2 : 0 }),
    })
    .map(({ reasoning: thought, builtIn: blocks, text, refusal, calls }) => {
      const parts: Part[] = [];
      if (thought !== undefined) parts.push(thought);
      parts.push(...blocks);
      // Where a refusal decides the stop reason (Responses), a refusing answer is all refusal: its text would be sent as refusal too.
      if (text !== undefined && !(refusal !== undefined && draft.capability.refusalStops)) parts.push({ type: 'text', text });
      if (refusal !== undefined) parts.push({ type: 'refusal', text: refusal });
      const toolCalls = calls.map(({ name, args, suffix }): ToolCallPart => ({ type: 'tool_call', id: `call_${draft.calls++}_${suffix}`, name, arguments: args }));
      parts.push(...toolCalls);
      if (parts.length === 0) parts.push({ type: 'text', text: 'ok' });
      return { message: { role: 'assistant', parts }, calls: toolCalls };
    });
}

function toolResults(draft: Draft, calls: readonly ToolCallPart[]): fc.Arbitrary<Message> {
  return fc
    .tuple(...calls.map(() => fc.record({ text: textArbitrary({ empty: false, huge: true }), isError: draft.capability.toolResultError ? fc.boolean() : fc.constant(false) })))
    .map((results): Message => ({
      role: 'tool',
      parts: results.map(({ text, isError }, index): Part => {
        const call = calls[index] as ToolCallPart;
        const part: Part = { type: 'tool_result', callId: call.id, name: call.name, content: [{ type: 'text', text }] };
        if (isError) part.isError = true;
        return part;
      }),
    }));
}

/** A conversation: an optional system prompt, then user → assistant (→ tool results → assistant) turns, ending with a user turn. */
function conversation(draft: Draft): fc.Arbitrary<Message[]> {
  const system = fc.option(
    fc.array(messageText(draft, { empty: false }), { minLength: 1, maxLength: draft.capability.systemParts }).map((texts): Message => ({ role: 'system', parts: texts.map((text): Part => ({ type: 'text', text })) })),
    { nil: undefined },
  );
  const exchange: fc.Arbitrary<Message[]> = fc.tuple(userMessage(draft), assistantTurn(draft, true)).chain(([user, assistant]) =>
    assistant.calls.length === 0
      ? fc.constant([user, assistant.message])
      : fc.tuple(toolResults(draft, assistant.calls), assistantTurn(draft, false)).map(([results, answer]): Message[] => [user, assistant.message, results, answer.message]),
  );
  return fc.tuple(system, fc.array(exchange, { maxLength: 3 }), userMessage(draft)).map(([prompt, exchanges, last]): Message[] => [...(prompt === undefined ? [] : [prompt]), ...exchanges.flat(), last]);
}

function toolsFor(messages: readonly Message[], capability: Capability): Tool[] | undefined {
  const names = new Set<string>();
  for (const message of messages) for (const part of message.parts) if (part.type === 'tool_call') names.add(part.name);
  if (names.size === 0) return undefined;
  return [...names].map((name): Tool => {
    const tool: Tool = { type: 'function', name, description: `the ${name} tool`, parameters: { type: 'object', properties: { q: { type: 'string' } } } };
    if (capability.toolStrict) tool.strict = false;
    return tool;
  });
}

/** A random IR request that `format` can carry whole. */
export function irRequestArbitrary(format: FormatId): fc.Arbitrary<IrRequest> {
  const draft: Draft = { format, capability: CAPABILITIES[format], calls: 0, request: true };
  return fc
    .record({
      model: draft.capability.modelInBody ? fc.constantFrom('model-a', 'gpt-test', 'claude-test', 'gemini-test') : fc.constant('model-a'),
      messages: fc.constant(null).chain(() => {
        draft.calls = 0;
        return conversation(draft);
      }),
      // OpenAI Responses takes at least 16 output tokens; its encoder raises a smaller limit (with a loss).
      maxTokens: fc.integer({ min: format === 'openai-responses' ? 16 : 1, max: 100_000 }),
      temperature: fc.option(fc.constantFrom(0, 0.5, 1), { nil: undefined }),
      topP: fc.option(fc.constantFrom(0.1, 0.9, 1), { nil: undefined }),
      stream: draft.capability.streamDefault === true ? fc.boolean() : draft.capability.streamField ? fc.option(fc.boolean(), { nil: undefined }) : fc.constant(undefined),
      cache:
        draft.capability.automaticCache === true
          ? fc.option(fc.constantFrom<CacheBreakpoint>({}, ...(draft.capability.cacheLifetimes ?? []).map((ttl) => ({ ttl }))), { nil: undefined, freq: 3 })
          : fc.constant(undefined),
      settings: draft.capability.openaiSettings === undefined ? fc.constant(undefined) : fc.option(openaiSettings(draft.capability.openaiSettings), { nil: undefined }),
      custom: draft.capability.openaiSettings === undefined ? fc.constant(undefined) : fc.option(customTool, { nil: undefined }),
      search: draft.capability.webSearch === undefined ? fc.constant(undefined) : fc.option(webSearchTool(draft.capability.webSearch), { nil: undefined }),
    })
    .map(({ model, messages, maxTokens, temperature, topP, stream, cache, settings, custom, search }) => {
      const request: IrRequest = { model, messages };
      if (cache !== undefined) request.cache = cache;
      if (settings !== undefined) Object.assign(request, settings);
      const tools = toolsFor(messages, draft.capability);
      const extra = [...(custom === undefined ? [] : [custom]), ...(search === undefined ? [] : [search])];
      if (tools !== undefined || extra.length > 0) request.tools = [...(tools ?? []), ...extra];
      const generation: Generation = { maxTokens };
      if (temperature !== undefined) generation.temperature = temperature;
      if (topP !== undefined) generation.topP = topP;
      request.generation = generation;
      if (stream !== undefined) request.stream = stream;
      return request;
    });
}

/** An OpenAI custom (free-text) tool: no format, free text, or a grammar. */
const customTool: fc.Arbitrary<Tool> = fc.constantFrom<Tool>(
  { type: 'custom', name: 'note' },
  { type: 'custom', name: 'note', description: 'Take a note.', format: { type: 'text' } },
  { type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" LINE+\nLINE: /.+/' } },
  { type: 'custom', name: 'digits', format: { type: 'grammar', syntax: 'regex', definition: '^\\d+$' } },
);

/** The vendor's web search with some of the settings `carried` lists. */
function webSearchTool(carried: NonNullable<Capability['webSearch']>): fc.Arbitrary<Tool> {
  const has = (setting: (typeof carried)[number]) => carried.includes(setting);
  return fc
    .record(
      {
        allowedDomains: has('allowedDomains') ? fc.constantFrom(['example.com'], ['a.org', 'b.net']) : fc.constant(undefined),
        userLocation: has('userLocation') ? fc.constantFrom({ country: 'US' }, { city: 'Paris', region: 'Île-de-France', country: 'FR', timezone: 'Europe/Paris' }) : fc.constant(undefined),
        maxUses: has('maxUses') ? fc.integer({ min: 1, max: 10 }) : fc.constant(undefined),
        contextSize: has('contextSize') ? fc.constantFrom('low', 'medium', 'high') : fc.constant(undefined),
      },
      { requiredKeys: [] },
    )
    .map((settings): Tool => {
      const tool: Tool = { type: 'web_search' };
      for (const [key, value] of Object.entries(settings)) if (value !== undefined) Object.assign(tool, { [key]: value });
      return tool;
    });
}

/** Some of the settings OpenAI Chat and Responses share (`streamUsage`, Chat's `include_usage`, for Chat only). */
function openaiSettings(api: 'chat' | 'responses'): fc.Arbitrary<Partial<IrRequest>> {
  return fc.record(
    {
      store: fc.boolean(),
      promptCacheKey: fc.constantFrom('policy-v1', 'user-42'),
      promptCacheRetention: fc.constantFrom('in-memory', '24h'),
      verbosity: fc.constantFrom('low', 'medium', 'high'),
      streamObfuscation: fc.boolean(),
      ...(api === 'chat' ? { streamUsage: fc.boolean() } : {}),
    },
    { requiredKeys: [] },
  );
}

/** A random IR response that `format` can carry whole. */
export function irResponseArbitrary(format: FormatId): fc.Arbitrary<IrResponse> {
  const capability = CAPABILITIES[format];
  const draft: Draft = { format, capability, calls: 0 };
  const candidate = fc.constant(null).chain(() => assistantTurn(draft, true));
  return fc
    .record({
      id: fc.stringMatching(/^[a-z]{3}_[A-Za-z0-9]{4,16}$/),
      // Bedrock responses carry no model: decoders take the URL's (the context's).
      model: format === 'bedrock-converse' ? fc.constant('model-a') : fc.constantFrom('model-a', 'gpt-test', 'claude-test', 'gemini-test'),
      created: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
      turns: fc.array(candidate, { minLength: 1, maxLength: capability.candidates }),
      stops: fc.array(fc.constantFrom(...capability.stopReasons), { minLength: capability.candidates, maxLength: capability.candidates }),
      input: fc.integer({ min: 0, max: 1_000_000 }),
      output: fc.integer({ min: 0, max: 1_000_000 }),
    })
    .map(({ id, model, created, turns, stops, input, output }) => {
      const response: IrResponse = {
        ...(capability.noResponseId === true ? {} : { id }),
        model,
        candidates: turns.map(({ message, calls }, index): Candidate => ({
          index,
          message,
          stopReason: {
            unified: calls.length > 0 ? 'tool_calls' : capability.refusalStops && message.parts.some((part) => part.type === 'refusal') ? 'refusal' : (stops[index] ?? 'end_turn'),
          },
        })),
        usage: capability.usageTotal ? { inputTokens: input, outputTokens: output, totalTokens: input + output } : { inputTokens: input, outputTokens: output },
      };
      if (capability.created) response.created = created;
      return response;
    });
}

/**
 * The normalised view of an IR value under which a same-format trip must be
 * the identity (docs/DESIGN.md "Reliability" lists these):
 * - `extensions` dropped everywhere (shape hints and wire-only fields);
 * - `rawArguments` dropped (string formats add the argument text; the parsed `arguments` are compared);
 * - `usage.raw` dropped, and `totalTokens` where the format reports none;
 * - stop reasons reduced to `unified` (decoders add the wire's `raw` value and its `format`);
 * - a tool result's `name` dropped (some formats carry it, others take it from the matching call);
 * - `syntheticId` dropped (Gemini marks ids it made up).
 */
