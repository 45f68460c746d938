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

/** One metric: its series by label values. */
abstract class Metric {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  protected readonly series = new Map<string, Series>();

  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  /** The series of `labels` (one value per label name), made on first use. */
  protected seriesOf(labels: readonly string[]): Series {
    const key = labels.join('\u0000');
    let series = this.series.get(key);
    if (series !== undefined) return series;
    if (this.series.size >= MAX_SERIES) {
      const other = this.labelNames.map(() => OTHER);
      const otherKey = other.join('\u0000');
      series = this.series.get(otherKey);
      if (series !== undefined) return series;
      series = this.fresh(other);
      this.series.set(otherKey, series);
      return series;
    }
    series = this.fresh(labels);
    this.series.set(key, series);
    return series;
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
    for (const series of this.series.values()) text += `${this.name}${labelText(this.labelNames, series.labels)} ${numberText(series.value)}\n`;
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
    for (const series of this.series.values()) {
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
