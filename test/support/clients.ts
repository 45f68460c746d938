/**
 * Drivers for the real official SDKs, one per ingress format, each asking
 * the same question with one tool and answering a tool call, through a
 * proxy at `baseUrl`.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { Ollama, type Message as OllamaMessage, type ChatResponse as OllamaChatResponse } from 'ollama';
import type { FormatId } from '../../src/core/ir.ts';

/** What a client saw of the model's turn. */
export interface Turn {
  text: string;
  toolCall?: { id?: string; name: string; arguments: Record<string, unknown> };
}

export interface ClientDriver {
  /** Ask the question (streamed or not). */
  ask(stream: boolean): Promise<Turn>;
  /** Send the tool result for `turn`'s call back. */
  answer(turn: Turn, result: string, stream: boolean): Promise<Turn>;
}

const QUESTION = 'Where is order A-18?';
const PARAMETERS = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] };
const KEY = 'caller-key';

function anthropicDriver(baseUrl: string): ClientDriver {
  const client = new Anthropic({ apiKey: KEY, baseURL: baseUrl, maxRetries: 0 });
  const tools = [{ name: 'lookup_order', description: 'Look up an order by id.', input_schema: PARAMETERS as Anthropic.Tool.InputSchema }];
  const run = async (messages: Anthropic.MessageParam[], stream: boolean): Promise<[Turn, Anthropic.ContentBlock[]]> => {
    const params = { model: 'claude-test', max_tokens: 256, tools, messages };
    const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const call = message.content.find((block) => block.type === 'tool_use');
    const turn: Turn = { text };
    if (call?.type === 'tool_use') turn.toolCall = { id: call.id, name: call.name, arguments: call.input as Record<string, unknown> };
    return [turn, message.content];
  };
  let history: Anthropic.ContentBlock[] = [];
  return {
    async ask(stream) {
      const [turn, content] = await run([{ role: 'user', content: QUESTION }], stream);
      history = content;
      return turn;
    },
    async answer(turn, result, stream) {
      const messages: Anthropic.MessageParam[] = [
        { role: 'user', content: QUESTION },
        { role: 'assistant', content: history },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: turn.toolCall?.id ?? '', content: result }] },
      ];
      return (await run(messages, stream))[0];
    },
  };
}

function chatDriver(baseUrl: string): ClientDriver {
  const client = new OpenAI({ apiKey: KEY, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup_order', description: 'Look up an order by id.', parameters: PARAMETERS } }];
  const run = async (messages: OpenAI.ChatCompletionMessageParam[], stream: boolean): Promise<[Turn, OpenAI.ChatCompletionMessage]> => {
    const params = { model: 'gpt-test', messages, tools };
    const message = stream
      ? (await client.chat.completions.stream(params).finalChatCompletion()).choices[0]!.message
      : (await client.chat.completions.create(params)).choices[0]!.message;
    const call = message.tool_calls?.[0];
    const turn: Turn = { text: message.content ?? '' };
    if (call?.type === 'function') turn.toolCall = { id: call.id, name: call.function.name, arguments: JSON.parse(call.function.arguments) as Record<string, unknown> };
    return [turn, message];
  };
  let last: OpenAI.ChatCompletionMessage | undefined;
  return {
    async ask(stream) {
      const [turn, message] = await run([{ role: 'user', content: QUESTION }], stream);
      last = message;
      return turn;
    },
    async answer(turn, result, stream) {
      const assistant: OpenAI.ChatCompletionAssistantMessageParam = { role: 'assistant', content: last?.content ?? null, tool_calls: last?.tool_calls ?? [] };
      return (await run([{ role: 'user', content: QUESTION }, assistant, { role: 'tool', tool_call_id: turn.toolCall?.id ?? '', content: result }], stream))[0];
    },
  };
}

function responsesDriver(baseUrl: string): ClientDriver {
  const client = new OpenAI({ apiKey: KEY, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'lookup_order', description: 'Look up an order by id.', parameters: PARAMETERS, strict: false }];
  const run = async (input: OpenAI.Responses.ResponseInput, stream: boolean): Promise<[Turn, OpenAI.Responses.ResponseOutputItem[]]> => {
    const params = { model: 'gpt-test', input, tools };
    const response = stream ? await client.responses.stream(params).finalResponse() : await client.responses.create(params);
    const call = response.output.find((item) => item.type === 'function_call');
    // The SDK fills output_text for create() only; for streams, join the output_text parts.
    const joined = response.output.flatMap((item) =>
      item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : [],
    );
    const turn: Turn = { text: response.output_text || joined.join('') };
    if (call?.type === 'function_call') turn.toolCall = { id: call.call_id, name: call.name, arguments: JSON.parse(call.arguments) as Record<string, unknown> };
    return [turn, response.output];
  };
  let output: OpenAI.Responses.ResponseOutputItem[] = [];
  return {
    async ask(stream) {
      const [turn, items] = await run([{ role: 'user', content: QUESTION }], stream);
      output = items;
      return turn;
    },
    async answer(turn, result, stream) {
      const input: OpenAI.Responses.ResponseInput = [
        { role: 'user', content: QUESTION },
        ...(output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: turn.toolCall?.id ?? '', output: result },
      ];
      return (await run(input, stream))[0];
    },
  };
}

function geminiDriver(baseUrl: string): ClientDriver {
  const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl } });
  const config = { tools: [{ functionDeclarations: [{ name: 'lookup_order', description: 'Look up an order by id.', parametersJsonSchema: PARAMETERS }] }] };
  type Content = { role: string; parts: Record<string, unknown>[] };
  const run = async (contents: Content[], stream: boolean): Promise<[Turn, Content]> => {
    const params = { model: 'gemini-test', contents, config };
    const parts: Record<string, unknown>[] = [];
    if (stream) {
      for await (const chunk of await client.models.generateContentStream(params)) parts.push(...((chunk.candidates?.[0]?.content?.parts ?? []) as Record<string, unknown>[]));
    } else {
      parts.push(...(((await client.models.generateContent(params)).candidates?.[0]?.content?.parts ?? []) as Record<string, unknown>[]));
    }
    const text = parts.flatMap((part) => (typeof part['text'] === 'string' && part['thought'] !== true ? [part['text']] : [])).join('');
    const call = parts.find((part) => part['functionCall'] !== undefined)?.['functionCall'] as { id?: string; name: string; args: Record<string, unknown> } | undefined;
    const turn: Turn = { text };
    if (call !== undefined) turn.toolCall = { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, arguments: call.args };
    return [turn, { role: 'model', parts }];
  };
  let model: Content = { role: 'model', parts: [] };
  return {
    async ask(stream) {
      const [turn, content] = await run([{ role: 'user', parts: [{ text: QUESTION }] }], stream);
      model = content;
      return turn;
    },
    async answer(turn, result, stream) {
      const response = { ...(turn.toolCall?.id === undefined ? {} : { id: turn.toolCall.id }), name: turn.toolCall?.name ?? '', response: { output: result } };
      return (await run([{ role: 'user', parts: [{ text: QUESTION }] }, model, { role: 'user', parts: [{ functionResponse: response }] }], stream))[0];
    },
  };
}

function ollamaDriver(baseUrl: string): ClientDriver {
  const client = new Ollama({ host: baseUrl });
  const tools = [{ type: 'function', function: { name: 'lookup_order', description: 'Look up an order by id.', parameters: PARAMETERS } }];
  const run = async (messages: OllamaMessage[], stream: boolean): Promise<[Turn, OllamaMessage]> => {
    const message: OllamaMessage = { role: 'assistant', content: '' };
    if (stream) {
      for await (const part of await client.chat({ model: 'llama-test', messages, tools, stream: true })) {
        message.content += part.message.content;
        if (part.message.tool_calls !== undefined) message.tool_calls = [...(message.tool_calls ?? []), ...part.message.tool_calls];
      }
    } else {
      const response: OllamaChatResponse = await client.chat({ model: 'llama-test', messages, tools, stream: false });
      Object.assign(message, response.message);
    }
    const call = message.tool_calls?.[0];
    const turn: Turn = { text: message.content };
    if (call !== undefined) turn.toolCall = { name: call.function.name, arguments: call.function.arguments };
    return [turn, message];
  };
  let last: OllamaMessage = { role: 'assistant', content: '' };
  return {
    async ask(stream) {
      const [turn, message] = await run([{ role: 'user', content: QUESTION }], stream);
      last = message;
      return turn;
    },
    async answer(turn, result, stream) {
      return (await run([{ role: 'user', content: QUESTION }, last, { role: 'tool', content: result, tool_name: turn.toolCall?.name ?? '' }], stream))[0];
    },
  };
}

/** The driver of the official SDK for `format`, pointed at `baseUrl`. */
export function clientFor(format: FormatId, baseUrl: string): ClientDriver {
  switch (format) {
    case 'anthropic':
      return anthropicDriver(baseUrl);
    case 'openai-chat':
      return chatDriver(baseUrl);
    case 'openai-responses':
      return responsesDriver(baseUrl);
    case 'gemini':
      return geminiDriver(baseUrl);
    case 'ollama':
      return ollamaDriver(baseUrl);
  }
}
