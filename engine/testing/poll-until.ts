// The one way tests wait (STYLE §11: no sleeps): poll a probe against a deadline. The short
// pause between probes only spaces them out; nothing waits for a fixed time.

/** Polls `probe` until it returns a value other than undefined/false, or fails at the deadline. */
export async function pollUntil<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, deadlineMs = 45_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
