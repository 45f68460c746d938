/** The text of `interlingua serve --help`: every flag, the config file's shape, and what serve warns about. */
export const SERVE_HELP = `Usage: interlingua serve --config FILE [options]
       interlingua serve --upstream FORMAT --upstream-url URL [options]
       interlingua serve --upstream bedrock-converse --region REGION [options]

Run the gateway: callers speak any format at its own path (/v1/messages,
/v1/chat/completions, /v1/responses, /v1beta/models/M:generateContent and
/v1beta/models/M:streamGenerateContent?alt=sse (or /v1/…), /api/chat,
/api/generate, /model/M/converse, /model/M/converse-stream); requests go to
the upstream in its format, answers come back in the caller's. Token counts
too (/v1/messages/count_tokens, /v1/responses/input_tokens,
/v1beta/models/M:countTokens, /model/M/count-tokens) between the formats
that have such an endpoint; an openai-chat or ollama upstream has none, and
the caller gets a 404 rather than an estimate.

One log line per request on stderr, written when the answer has ended (a
stream at its last byte): request id (the caller's x-request-id, or a new
one; echoed back), formats, models before and after mapping, status,
duration, time to first byte, tokens, stop reasons, the losses' codes
(request and answer sides, streams included), the upstream's own request id
(also sent back as x-interlingua-upstream-request-id) and whether a stream
ended with an error event. Every value is escaped; keys never appear in
logs. GET /metrics answers Prometheus text (behind the inbound token when
one is set). With --otlp-endpoint, or the standard OTEL_EXPORTER_OTLP_ENDPOINT
(or _TRACES_ENDPOINT, _METRICS_ENDPOINT) variable, spans and metrics
following the OpenTelemetry GenAI conventions are exported over OTLP/HTTP,
protobuf by default (OTEL_EXPORTER_OTLP_PROTOCOL, or its _TRACES_/_METRICS_
form, =http/json for JSON; grpc is refused at start-up);
OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
OTEL_METRIC_EXPORT_INTERVAL, OTEL_TRACES_EXPORTER=none,
OTEL_METRICS_EXPORTER=none, OTEL_PROPAGATORS=none and OTEL_SDK_DISABLED=true
are honoured; message content goes into spans only with
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. W3C trace context
goes upstream: the caller's traceparent and tracestate as they came, or,
when exporting, the request span's own (a child of the caller's).

With --config, a YAML or JSON file names many upstreams and routes models to
them, with fallbacks to other vendors (the request converted to each) and
retries before the first byte reaches the caller; every mistake in the file
is refused at start-up with its line. "\${VAR}" in a value reads the
environment. The upstream flags below are the one-upstream case of it: one
upstream, a route per --model-map rule, then every other model, no retry.

  upstreams:
    anthropic: { format: anthropic, url: https://api.anthropic.com, key: "\${ANTHROPIC_API_KEY}" }
    bedrock:   { format: bedrock-converse, region: us-east-1 }
    openai:    { format: openai-chat, url: https://api.openai.com/v1, key: "\${OPENAI_API_KEY}" }
    local:     { format: ollama, url: http://127.0.0.1:11434, models: [llama3.2] }
  routes:
    - match: "claude-*"
      targets:
        - upstream: anthropic
        - upstream: bedrock
          model: us.anthropic.claude-sonnet-4-5-20250929-v1:0
      retry: { attempts: 2, initialDelayMs: 500, maxDelayMs: 8000 }
      deadlineMs: 60000
    - match: "gpt-*"
      targets: [{ upstream: openai }]

Also answered: GET /v1/models (OpenAI's list shape, Anthropic's when
anthropic-version is sent), /v1beta/models (Gemini), /api/tags (Ollama)
with the configured model names; /healthz (the process is up) and /readyz
(every route has a live upstream: each upstream's models list is probed
with its key, Bedrock's endpoint for reachability, at most every 5 s;
503 listing the upstreams that are down otherwise; readiness: { probe:
false } in the config skips the probes); HEAD on any path (client probes)
with 200. Unknown paths get a 404 in their format's shape.
The answer's x-interlingua-upstream header names the upstream that served.

A Bedrock upstream is signed with SigV4 using AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (or sent a Bedrock API key as a
bearer token with --api-key-env); its URL defaults to
https://bedrock-runtime.REGION.amazonaws.com.

With --inbound-token-env, callers present the token in x-interlingua-token
or their SDK's key header; with --pass-through-auth too, that header carries
their own vendor key and the token goes in x-interlingua-token only
(--pass-through-auth with --api-key-env is refused). Redirects from the
upstream are never followed. Limits and what the proxy redacts: docs/SECURITY.md.

With --store, OpenAI Responses callers keep state through the proxy in
front of any upstream: previous_response_id, conversation, store,
GET/DELETE /v1/responses/ID, /v1/responses/ID/input_items and the
Conversations API (/v1/conversations…), each caller's entries under a hash
of the key its SDK sends. The store is shared by all upstreams, so a chain
may cross a fallback to another vendor. Specs: memory (lost at exit; the
only one so far). Without --store no state is kept, and an openai-responses
upstream gets previous_response_id as sent.

Options:
  --config FILE            the gateway's configuration (YAML or JSON); not with the upstream flags
  --port N                 port to listen on (default 8787; 0 picks a free one)
  --host HOST              address to bind (default 127.0.0.1)
  --upstream FORMAT        anthropic, openai-chat, openai-responses, gemini, ollama or bedrock-converse (required)
  --upstream-url URL       API root as the vendor SDK spells it, e.g. https://api.openai.com/v1
                           (required, except for Bedrock)
  --region REGION          Bedrock: the AWS region (default AWS_REGION, then AWS_DEFAULT_REGION, then us-east-1)
  --dialect NAME           the upstream's dialect of openai-chat: deepseek, openrouter, gemini-openai,
                           vllm, ollama-openai (default: plain OpenAI)
  --api-key-env VAR        environment variable holding the upstream API key
  --pass-through-auth      forward the caller's own key upstream instead
  --model-map PATTERN=MODEL  map models by glob, e.g. 'claude-*=gpt-5' (repeatable; first match wins)
  --inbound-token-env VAR  require callers to present the token in this variable
  --timeout MS             time for the upstream to start answering, and the
                           longest silence within an answer (default 120000)
  --max-body BYTES         largest request body (default 33554432)
  --log-format FORMAT      text (default) or json (one JSON object per line)
  --otlp-endpoint URL      export OpenTelemetry spans and metrics over OTLP/HTTP (protobuf;
                           OTEL_EXPORTER_OTLP_PROTOCOL=http/json for JSON) to this
                           collector (/v1/traces and /v1/metrics are added)
  --max-tokens-default N   max_tokens sent to Anthropic upstreams for requests that name none
                           (default 4096; reported as a "defaulted" loss)
  --strict                 refuse, with a 400 in the caller's format listing them, requests whose
                           conversion reports losses (warnings or worse) instead of converting
  --max-answer BYTES       largest whole upstream answer (default 134217728; larger is a 502)
  --max-inflight BYTES     request bytes all requests in flight, to every upstream, may hold
                           together (default 268435456; beyond it 503 with retry-after)
  --deadline MS            longest a request may take, streams included (default: none)
  --store SPEC             keep stateful Responses and Conversations in this store: memory
  --store-ttl SECONDS      how long stored responses and conversations live (default 2592000, 30 days)
  -h, --help               show this help

At start-up serve warns when it binds a non-loopback address without an
inbound token, when an upstream has no key, and when an upstream URL already
ends in the path its format adds (…/v1 for anthropic).
`;
