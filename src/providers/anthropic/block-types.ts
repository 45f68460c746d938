/**
 * Wire block types that interlingua keeps whole as opaque parts (server-tool
 * calls and results, MCP blocks, compaction, …): known, so no `unknown_block`
 * loss, but without a neutral meaning; and the block types whose input
 * streams as JSON deltas, which the stream decoder and encoder both know.
 *
 * @see https://docs.anthropic.com/en/api/messages#response-content
 */

/** Block types (stable and beta) kept whole as `OpaquePart`s with format `anthropic`. */
export const OPAQUE_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'advisor_tool_result',
  'container_upload',
  'mcp_tool_use',
  'mcp_tool_result',
  'mcp_tool_listing',
  'compaction',
  'fallback',
  'tool_addition',
  'tool_removal',
  'tool_reference',
  'browser_state',
]);

/** Opaque block types whose `id` a later `tool_result` may answer. */
export const CALL_BLOCK_TYPES: ReadonlySet<string> = new Set(['server_tool_use', 'mcp_tool_use']);

/** Block types whose `input` streams as `input_json_delta`. */
export const TOOL_INPUT_TYPES: ReadonlySet<string> = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);
