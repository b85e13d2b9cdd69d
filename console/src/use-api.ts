// A hook that owns one API call's state (loading, data, error), aborting the previous call
// when its inputs change or the view goes away.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from './api.ts';

export interface ApiCallState<T> { data: T | undefined; error: string | null; loading: boolean }

export function useApi<T>(call: (signal: AbortSignal) => Promise<T>, inputs: unknown[]): ApiCallState<T> & { reload: () => void } {
  const [state, setState] = useState<ApiCallState<T>>({ data: undefined, error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ data: previous.data, error: null, loading: true }));
    call(controller.signal).then(
      (data) => { if (!controller.signal.aborted) setState({ data, error: null, loading: false }); },
      (error: unknown) => { if (!controller.signal.aborted) setState({ data: undefined, error: errorMessage(error), loading: false }); },
    );
    return () => controller.abort();
  }, [...inputs, generation]);
  return { ...state, reload: () => setGeneration((n) => n + 1) };
}
