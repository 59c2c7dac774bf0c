// Prometheus's text exposition format (version 0.0.4), written directly for the families that have
// a sample per JobSet (runtime/jobset-metrics.ts): the same text prom-client writes, without an
// object per label set. Pure: values in, text out.

/** A label's value as the format writes it between quotes: backslash, newline and double quote escaped. */
export function labelValue(value: string): string {
  return ESCAPED_IN_LABEL.test(value) ? value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"') : value;
}

const ESCAPED_IN_LABEL = /[\\\n"]/;

/** A HELP line's text: backslash and newline escaped. */
function helpText(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample's value: Go's spelling of NaN and the infinities as prom-client writes them, else JavaScript's. */
export function sampleValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return `${value}`;
}

/** One metric family: its HELP and TYPE lines, then a line per sample, in the order added. */
export class Family {
  readonly #name: string;
  #text: string;

  constructor(name: string, help: string, type: 'gauge' | 'counter') {
    this.#name = name;
    this.#text = `# HELP ${name} ${helpText(help)}\n# TYPE ${name} ${type}`;
  }

  /** A sample; `labels`: its label set as written, braces included (labelValue for each value). */
  add(labels: string, value: number): void {
    this.#text += `\n${this.#name}${labels} ${sampleValue(value)}`;
  }

  /** The family's lines, without a newline after the last (as a registry's families are joined). */
  text(): string {
    return this.#text;
  }
}
