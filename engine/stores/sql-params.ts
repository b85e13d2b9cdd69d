// Builds PostgreSQL $n placeholders while composing a WHERE clause from parts, so every
// value is bound and none is spliced into SQL text (STYLE §7).
export class SqlParams {
  readonly values: unknown[] = [];

  /** Binds a value and returns its placeholder. */
  bind(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
