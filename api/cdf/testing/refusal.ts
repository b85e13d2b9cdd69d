// Test helpers for the pure CDF form modules: what a translation refused, or 'accepted'.

/** The fields a refused translation named (comma-joined), or 'accepted'. */
export function refusedFields(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (error) {
    return (error as { fields?: { field: string }[] }).fields?.map((f) => f.field).join(',') ?? String(error);
  }
}

/** `<error code>: <message>` of a refused translation, or 'accepted'. */
export function refusal(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
}
