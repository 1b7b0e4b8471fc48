/**
 * Asked once per tab when the server has AUTH_TOKENS set: the token is checked with
 * `viewer { role }` and kept in sessionStorage, so a reload does not ask again.
 */
import { useState } from 'preact/hooks';
import { ApiError, request } from '../api';
import { type Role, ViewerDocument } from '../gql/graphql';

export function TokenPrompt(props: { onAccepted: (token: string, role: Role) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const token = value.trim();
    if (!token) return;
    setBusy(true);
    try {
      const data = await request(ViewerDocument, {}, { token });
      props.onAccepted(token, data.viewer.role);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.code === 'UNAUTHENTICATED'
          ? 'That token was not accepted.'
          : failure instanceof ApiError
            ? failure.words
            : String(failure),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="token-screen">
      <form class="panel token-form" onSubmit={submit} data-testid="token-form">
        <h1>Sign in</h1>
        <p class="muted">
          This server needs a token (<code>AUTH_TOKENS</code>). A <b>read</b> token watches; an{' '}
          <b>admin</b> token can also pause, resume and set limits. It is kept for this tab only.
        </p>
        <input
          class="token-input"
          type="password"
          autoComplete="off"
          placeholder="token"
          aria-label="Token"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="btn btn-primary" disabled={busy || value.trim() === ''}>
          Continue
        </button>
        {error && <p class="error">{error}</p>}
      </form>
    </div>
  );
}
