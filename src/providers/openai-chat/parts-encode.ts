/**
 * Encode IR parts as Chat Completions content parts. Chat carries text,
 * images (data or http URLs), wav/mp3 audio input and PDF files (data or
 * file id) in user messages; everything else is reported as a loss.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
import type {
  ChatCompletionContentPartInputAudio,
  ChatCompletionContentPartText,
} from 'openai/resources/chat/completions/completions';
import type { LossCollector } from '../../core/losses.ts';
import type { AudioPart, DocumentPart, ImagePart, Part, ReasoningPart, TextPart } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { setDataUrl } from '../../core/serialize.ts';
import { pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { FORMAT, nestedExtras, shapeHint } from './shape.ts';
import { audioFormat } from './media-types.ts';
import { withChatMarkers, type ChatSpelling } from './cache-breakpoint.ts';
import { standardBase64 } from '../../core/media.ts';
import { validUri } from '../../core/uri.ts';

/** Report a part Chat Completions cannot carry. */
export function reportUnsupported(part: Part, where: string, losses: LossCollector, path: string): void {
  if (part.type === 'reasoning') {
    reportReasoning(part, losses, path);
    return;
  }
  const what = part.type === 'opaque' ? `the ${part.format} "${part.blockType}" block` : `a ${part.type} part`;
  losses.addAt(part, 'unsupported_part', path, `Chat Completions cannot carry ${what} in ${where}; dropped`);
}

/** Reasoning never travels in Chat Completions: report its text and its opaque state. */
function reportReasoning(part: ReasoningPart, losses: LossCollector, path: string): void {
  if (part.state !== undefined) {
    losses.addAt(part, 'reasoning_state_dropped', path, `${part.state.format} reasoning ${part.state.kind} only goes back to ${part.state.format}; dropped`);
  }
  if (part.state === undefined || part.text !== '' || (part.summary?.length ?? 0) > 0) {
    losses.addAt(part, 'unsupported_part', path, 'Chat Completions has no reasoning content; reasoning dropped');
  }
}

/** Encode a text part, with its prompt-cache breakpoint under the keys of `spelling` (cache-breakpoint.ts). Citations only travel on assistant content (see annotations). */
export function encodeOpenaiChatTextPart(part: TextPart, losses: LossCollector, path: string, spelling: ChatSpelling = 0): JsonObject {
  losses.foreignExtensions(part.extensions, FORMAT, path);
  const text = spreadExtensions({ type: 'text', text: part.text } satisfies ChatCompletionContentPartText, part, FORMAT);
  return spelling !== 0 && part.cache !== undefined ? withChatMarkers(text, part.cache, spelling, path, losses) : text;
}

function encodeImage(part: ImagePart, losses: LossCollector, path: string): JsonObject | undefined {
  const source = part.source;
  const imageUrl: JsonObject = {};
  switch (source.kind) {
    case 'base64': {
      const header = shapeHint(part, '$dataUrlHeader');
      setDataUrl(imageUrl, 'url', typeof header === 'string' ? header : `data:${source.mediaType};base64,`, standardBase64(source.data));
      break;
    }
    case 'url':
      imageUrl['url'] = validUri(source.url);
      break;
    case 'file':
      losses.add('unsupported_part', path, `Chat Completions images cannot refer to an uploaded file ("${source.id}"); dropped`);
      return undefined;
    default:
      return unreachable(source);
  }
  losses.foreignExtensions(part.extensions, FORMAT, path);
  const detail = shapeHint(part, '$detail') ?? part.detail;
  if (detail !== undefined) imageUrl['detail'] = detail;
  const wire = { type: 'image_url', image_url: nestedExtras(imageUrl, part, 'image_url') };
  return spreadExtensions(wire, part, FORMAT);
}

function encodeAudio(part: AudioPart, losses: LossCollector, path: string): JsonObject | undefined {
  const source = part.source;
  if (source.kind !== 'base64') {
    losses.add('unsupported_part', path, 'Chat Completions audio input must be inline base64 data; audio by URL or file dropped');
    return undefined;
  }
  losses.foreignExtensions(part.extensions, FORMAT, path);
  const hinted = shapeHint(part, '$format');
  let format: string;
  if (typeof hinted === 'string') {
    format = hinted;
  } else {
    const mapped = audioFormat(source.mediaType);
    format = mapped.format;
    if (!mapped.accepted) {
      losses.add('approximated', path, `Chat Completions accepts wav or mp3 audio input; ${source.mediaType} sent as format "${format}"`);
    }
  }
  const inputAudio = nestedExtras({ data: standardBase64(source.data), format }, part, 'input_audio');
  const wire = { type: 'input_audio', input_audio: inputAudio as ChatCompletionContentPartInputAudio.InputAudio };
  if (part.transcript !== undefined) losses.add('dropped_field', pointer(path, 'transcript'), 'Chat audio input has no transcript');
  return spreadExtensions(wire, part, FORMAT);
}

function encodeDocument(part: DocumentPart, losses: LossCollector, path: string): JsonObject | undefined {
  const source = part.source;
  const file: JsonObject = {};
  switch (source.kind) {
    case 'base64': {
      const header = shapeHint(part, '$dataUrlHeader');
      const bare = shapeHint(part, '$bareFileData') === true;
      if (bare) file['file_data'] = standardBase64(source.data);
      else setDataUrl(file, 'file_data', typeof header === 'string' ? header : `data:${source.mediaType};base64,`, standardBase64(source.data));
      if (source.mediaType !== 'application/pdf' && part.extensions?.[FORMAT] === undefined) {
        losses.add('approximated', path, `Chat Completions file parts are meant for PDF; ${source.mediaType} may be rejected`);
      }
      break;
    }
    case 'file':
      if (source.format !== FORMAT && source.format !== 'openai-responses') {
        losses.add('unsupported_part', path, `file id "${source.id}" belongs to ${source.format ?? 'another vendor'}'s file store; dropped`);
        return undefined;
      }
      file['file_id'] = source.id;
      break;
    case 'text':
      losses.add('approximated', path, 'a plain-text document was sent as a text part');
      return { type: 'text', text: source.text };
    case 'url':
      if (shapeHint(part, '$fileDataUrl') === true) {
        file['file_data'] = validUri(source.url);
        break;
      }
      losses.add('unsupported_part', path, `Chat Completions file parts cannot refer to a URL ("${source.url}"); dropped`);
      return undefined;
    case 'content':
      losses.add('unsupported_part', path, 'Chat Completions cannot carry a document made of parts; dropped');
      return undefined;
    default:
      return unreachable(source);
  }
  losses.foreignExtensions(part.extensions, FORMAT, path);
  const filename = part.filename ?? (source.kind === 'file' ? source.filename : undefined);
  if (filename !== undefined) file['filename'] = filename;
  if (part.title !== undefined) losses.add('dropped_field', pointer(path, 'title'), 'Chat file parts have no title');
  if (part.context !== undefined) losses.add('dropped_field', pointer(path, 'context'), 'Chat file parts have no context');
  if (part.citations !== undefined) losses.add('dropped_field', pointer(path, 'citations'), 'Chat file parts have no citation switch');
  const wire = { type: 'file', file: nestedExtras(file, part, 'file') };
  return spreadExtensions(wire, part, FORMAT);
}

/**
 * Encode one part of a user message as a content part; `undefined` (after a
 * loss) when Chat cannot carry it. The part's prompt-cache breakpoint goes
 * with it under the keys of `spelling` (cache-breakpoint.ts).
 */
export function encodeOpenaiChatUserPart(part: Part, losses: LossCollector, path: string, spelling: ChatSpelling = 0): JsonObject | undefined {
  const wire = userPart(part, losses, path);
  // An opaque part's value is the source's own object: it is written as it came.
  if (spelling === 0 || part.cache === undefined || wire === undefined || part.type === 'opaque') return wire;
  return withChatMarkers(wire, part.cache, spelling, path, losses);
}

function userPart(part: Part, losses: LossCollector, path: string): JsonObject | undefined {
  switch (part.type) {
    case 'text':
      if (part.citations !== undefined && part.citations.length > 0) {
        losses.add('dropped_field', pointer(path, 'citations'), 'Chat user text has no citations');
      }
      return encodeOpenaiChatTextPart(part, losses, path);
    case 'image':
      return encodeImage(part, losses, path);
    case 'audio':
      return encodeAudio(part, losses, path);
    case 'document':
      return encodeDocument(part, losses, path);
    case 'opaque':
      if (part.format === FORMAT) return part.value as JsonObject;
      reportUnsupported(part, 'a user message', losses, path);
      return undefined;
    case 'video':
    case 'reasoning':
    case 'tool_call':
    case 'tool_result':
    case 'refusal':
      reportUnsupported(part, 'a user message', losses, path);
      return undefined;
    default:
      return unreachable(part);
  }
}
