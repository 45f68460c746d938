/**
 * A small metrics registry (counters and histograms with labels) and its
 * rendering in the Prometheus text exposition format, for `GET /metrics`.
 * The number of label sets per metric is capped, so a caller that sends a
 * new model name with every request cannot grow the registry without bound:
 * past the cap, new label sets are counted under `_other`. Web APIs only.
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */

/** The most label sets one metric keeps apart. */
export const MAX_SERIES = 1000;

/** The label value that stands for every label set past {@link MAX_SERIES}. */
export const OTHER = '_other';

interface Series {
  labels: readonly string[];
  value: number;
  /** Histograms: the count per bucket (not cumulative), the last being +Inf. */
  buckets?: number[];
  sum?: number;
}

/** Series by their label values, one map level per label (no key string made per lookup: the values' own hashes are reused). */
type SeriesTree = Map<string, SeriesTree | Series>;

/** One metric: its series by label values. */
abstract class Metric {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** Every series, in the order made. */
  protected readonly series: Series[] = [];
  readonly #tree: SeriesTree = new Map();
  #other: Series | undefined;

  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  /** The series of `labels` (one value per label name), made on first use. */
  protected seriesOf(labels: readonly string[]): Series {
    let level = this.#tree;
    const last = labels.length - 1;
    for (let index = 0; index < last; index++) {
      const label = labels[index] as string;
      let next = level.get(label) as SeriesTree | undefined;
      if (next === undefined) {
        if (this.series.length >= MAX_SERIES) return this.#overflow();
        next = new Map();
        level.set(label, next);
      }
      level = next;
    }
    const key = labels[last] ?? '';
    const found = level.get(key) as Series | undefined;
    if (found !== undefined) return found;
    if (this.series.length >= MAX_SERIES) return this.#overflow();
    const series = this.fresh(labels.slice());
    level.set(key, series);
    this.series.push(series);
    return series;
  }

  /** The one series every label set past {@link MAX_SERIES} is counted in. */
  #overflow(): Series {
    if (this.#other === undefined) {
      this.#other = this.fresh(this.labelNames.map(() => OTHER));
      this.series.push(this.#other);
    }
    return this.#other;
  }

  protected fresh(labels: readonly string[]): Series {
    return { labels, value: 0 };
  }

  abstract render(): string;
}

/** A monotonic counter. */
export class Counter extends Metric {
  add(labels: readonly string[], value = 1): void {
    this.seriesOf(labels).value += value;
  }

  render(): string {
    let text = `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} counter\n`;
    for (const series of this.series) text += `${this.name}${labelText(this.labelNames, series.labels)} ${numberText(series.value)}\n`;
    return text;
  }
}

/** A histogram over fixed bucket boundaries. */
export class Histogram extends Metric {
  readonly boundaries: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], boundaries: readonly number[]) {
    super(name, help, labelNames);
    this.boundaries = boundaries;
  }

  protected override fresh(labels: readonly string[]): Series {
    return { labels, value: 0, buckets: new Array<number>(this.boundaries.length + 1).fill(0), sum: 0 };
  }

  observe(labels: readonly string[], value: number): void {
    const series = this.seriesOf(labels);
    const boundaries = this.boundaries;
    let index = 0;
    while (index < boundaries.length && value > (boundaries[index] as number)) index++;
    series.buckets![index]! += 1;
    series.value += 1;
    series.sum! += value;
  }

  render(): string {
    let text = `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} histogram\n`;
    for (const series of this.series) {
      let cumulative = 0;
      for (let index = 0; index <= this.boundaries.length; index++) {
        cumulative += series.buckets![index]!;
        const le = index === this.boundaries.length ? '+Inf' : numberText(this.boundaries[index]!);
        text += `${this.name}_bucket${labelText([...this.labelNames, 'le'], [...series.labels, le])} ${cumulative}\n`;
      }
      const labels = labelText(this.labelNames, series.labels);
      text += `${this.name}_sum${labels} ${numberText(series.sum!)}\n${this.name}_count${labels} ${series.value}\n`;
    }
    return text;
  }
}

/** Metrics by name, rendered together. */
export class MetricsRegistry {
  readonly #metrics = new Map<string, Metric>();

  counter(name: string, help: string, labelNames: readonly string[]): Counter {
    return this.#add(new Counter(name, help, labelNames));
  }

  histogram(name: string, help: string, labelNames: readonly string[], boundaries: readonly number[]): Histogram {
    return this.#add(new Histogram(name, help, labelNames, boundaries));
  }

  #add<T extends Metric>(metric: T): T {
    if (this.#metrics.has(metric.name)) throw new Error(`the metric ${metric.name} is registered twice`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }

  /** Every metric in the Prometheus text format (version 0.0.4). */
  render(): string {
    let text = '';
    for (const metric of this.#metrics.values()) text += metric.render();
    return text;
  }
}

/** The media type of {@link MetricsRegistry.render}'s text. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A label value as the format writes it: backslash, double quote and line feed escaped. */
function labelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (character) => (character === '\n' ? '\\n' : `\\${character}`));
}

function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  let text = '{';
  for (let index = 0; index < names.length; index++) text += `${index === 0 ? '' : ','}${names[index]}="${labelValue(values[index] ?? '')}"`;
  return `${text}}`;
}

function escapeHelp(help: string): string {
  return help.replace(/[\\\n]/g, (character) => (character === '\n' ? '\\n' : '\\\\'));
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
