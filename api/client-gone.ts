// Whether the client of one request has left (uWS's onAborted: from then on the response must
// not be touched), and who wants to know: the body reader, a streamed body, a streamed reply.
// A plain object per request rather than an AbortController: the controller, its AbortSignal
// and the EventTarget behind it took 3-5 us a request in isolation and ~30 us in the service
// under the paced one-tenant gateway ingest (bench/probe.ts gateway --profile: 156 ms of 20 s
// of the event loop in createAbortSignal alone), and each signal outlived young collections.

export class ClientGone {
  private gone = false;
  private listeners: (() => void)[] | undefined;

  /** True once the client has left. */
  get aborted(): boolean {
    return this.gone;
  }

  /**
   * Calls `listener` once, when the client leaves. A listener added after that is never called:
   * check `aborted` first. Returns what removes it (harmless once called).
   */
  onLeave(listener: () => void): () => void {
    if (this.gone) return () => undefined;
    (this.listeners ??= []).push(listener);
    return () => {
      const at = this.listeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.listeners?.splice(at, 1);
    };
  }

  /**
   * The client left: every listener runs once, in the order added, even when one throws; the
   * first error is thrown after them all (the onAborted guard logs it).
   */
  leave(): void {
    if (this.gone) return;
    this.gone = true;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    let failure: { error: unknown } | undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}
