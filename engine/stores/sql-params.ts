// Builds PostgreSQL $n placeholders while composing a WHERE clause from parts, so every
// value is bound and none is spliced into SQL text (STYLE §7).
export class SqlParams {
  readonly values: unknown[] = [];

  /** Binds a value and returns its placeholder. */
  bind(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** Forgets the values bound after the first `count`: the SQL that used them was dropped. */
  truncate(count: number): void {
    this.values.length = Math.min(count, this.values.length);
  }

  /**
   * A copy holding the values bound so far: two statements can then share what was composed
   * up to here and each bind its own rest (PostgreSQL refuses a placeholder a statement does
   * not use, as it cannot tell its type).
   */
  fork(): SqlParams {
    const copy = new SqlParams();
    copy.values.push(...this.values);
    return copy;
  }
}
