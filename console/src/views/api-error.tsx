// The one way an API refusal is shown: an alert a screen reader announces at once.

export function ApiErrorAlert({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return <p class="api-error" role="alert" data-testid="api-error">{message}</p>;
}

export function Loading({ what }: { what: string }) {
  return <p class="loading" aria-live="polite">Loading {what}…</p>;
}
