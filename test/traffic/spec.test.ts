/**
 * Output the official specs accept (issue 16, item 1). Every corpus and
 * golden request and response, of every format, converted to every other
 * format that has a spec, must validate against the target's schema in the
 * official spec
 * (test/corpus/spec): OpenAI `CreateChatCompletionRequest`,
 * `CreateChatCompletionResponse`, `CreateResponse`, `Response`; Anthropic
 * `BetaCreateMessageParams`, `BetaMessage` (the beta surface: the corpus uses
 * beta features); Gemini `GenerateContentRequest`, `GenerateContentResponse`
 * (an unofficial spec). The relaxations in test/support/spec-relaxations.json
 * say where a spec is stricter than real traffic, each with its reason; they
 * are calibrated so that the originals of every format pass their own schema
 * (the originals listed there are exempt, with the reason: recorded requests
 * the vendor refused, another API surface such as Vertex AI or Bedrock,
 * hand-written goldens that test a shape on purpose).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest, convertResponse } from '../../src/formats/convert.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { implementedFormats } from '../../src/formats/registry.ts';
import { corpusFixtures, crossCases, crossSource, fixtureBody, goldenFixtures, readJson, type Fixture } from '../support/fixtures.ts';
import { describeErrors, exemptReason, readRelaxations, SpecValidators } from '../support/spec-schemas.ts';

const MODEL = 'model-under-test';
const validators = new SpecValidators();
const relaxations = readRelaxations();
/** The formats with a spec schema: the targets checked, and the sources whose originals are. Converse and Ollama bodies are sources only. */
const formats = implementedFormats().filter((format) => format in { anthropic: 1, 'openai-chat': 1, 'openai-responses': 1, gemini: 1 });
const sourceFormats = implementedFormats();

type Kind = 'request' | 'response';
interface Source {
  format: FormatId;
  kind: Kind;
  name: string;
  body: unknown;
}

function sources(): Source[] {
  const list: Source[] = [];
  const add = (fixture: Fixture): void => {
    if (fixture.kind === 'error' || !sourceFormats.includes(fixture.format)) return;
    list.push({ format: fixture.format, kind: fixture.kind, name: fixture.name, body: fixtureBody(fixture).body });
  };
  for (const fixture of corpusFixtures()) add(fixture);
  for (const fixture of goldenFixtures()) add(fixture);
  for (const crossCase of crossCases()) {
    for (const format of sourceFormats) {
      for (const kind of ['request', 'response'] as const) {
        const file = crossSource(crossCase, format, kind);
        if (file !== undefined) list.push({ format, kind, name: `golden/cross/${crossCase.name}/${format}.${kind}.json`, body: readJson(file) });
      }
    }
  }
  return list;
}

const all = sources();

const originals = suite('spec: the originals pass their own schema');
for (const source of all) {
  if (!formats.includes(source.format)) continue;
  const exempt = exemptReason(relaxations, source.name);
  originals(source.name, () => {
    const errors = validators.validate(source.format, source.kind, source.body);
    if (exempt === undefined) assert.ok(errors === undefined, `${source.name} fails its own schema:\n${describeErrors(errors ?? [])}`);
    else assert.ok(errors !== undefined, `${source.name} is listed as exempt ("${exempt}") but passes: remove it from spec-relaxations.json`);
  });
}
originals.run();

const conversions = suite('spec: every conversion passes the target schema');
let checked = 0;
let refused = 0;
for (const source of all) {
  // Requests the vendor refused (listed as `invalid:`) convert faithfully into bodies as invalid as they were.
  if (exemptReason(relaxations, source.name)?.startsWith('invalid:') === true) continue;
  conversions(source.name, () => {
    const failures: string[] = [];
    for (const target of formats) {
      if (target === source.format) continue;
      let body: unknown;
      try {
        const convert = source.kind === 'request' ? convertRequest : convertResponse;
        body = convert(source.body, { from: source.format, to: target, model: MODEL }).body;
      } catch (error) {
        // A typed refusal (a tool result answering no call, …) is not output; anything else is a bug.
        if (!isInterlinguaError(error)) throw error;
        refused++;
        continue;
      }
      checked++;
      const errors = validators.validate(target, source.kind, body);
      if (errors !== undefined) failures.push(`→ ${target} ${source.kind}:\n${describeErrors(errors)}`);
    }
    if (failures.length > 0) assert.unreachable(failures.join('\n'));
  });
}
conversions.after(() => console.log(`\n  spec: ${checked} conversions validated, ${refused} refused with a typed error`));
conversions.run();
