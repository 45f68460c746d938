/**
 * The library as the benchmark times it: the compiled build in `dist/`
 * (`npm run build`; `npm run bench` builds first), which is what users run.
 * tsx leaves these plain JavaScript files as tsc wrote them. Only what is
 * timed comes from here; workloads and meaning checks use the sources.
 */
export { convertRequest, convertResponse } from '../../dist/formats/convert.js';
export { convertStream, DONE } from '../../dist/formats/stream.js';
export { codecFor, implementedFormats, isFormatId } from '../../dist/formats/registry.js';
export { LossCollector } from '../../dist/core/losses.js';
export { stringifyBody } from '../../dist/core/serialize.js';
export { framingFor } from '../../dist/formats/stream.js';
