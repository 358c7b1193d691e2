// Sign-in: the admin token `npm run host` prints (or HOST_ADMIN_TOKEN) exchanged for a session.
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import type { SessionInfo } from '../api/types.ts';
import { signIn } from '../session.ts';
import { ErrorAlert, Notice } from '../ui/alert.tsx';

export function SignInPage(props: { message?: string; onSignedIn(session: SessionInfo): void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(await signIn(token.trim()));
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 403
          ? new ApiError(
              403,
              caught.code,
              'That admin token is not valid. Use the token `npm run host` printed, or HOST_ADMIN_TOKEN.',
              [],
              caught.requestId,
            )
          : caught,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="sign-in">
      <h1 tabIndex={-1}>Sign in to the integration host</h1>
      {props.message ? <Notice>{props.message}</Notice> : null}
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="admin-token">Admin token</label>
          <input
            id="admin-token"
            name="token"
            type="password"
            autocomplete="current-password"
            required
            aria-describedby="admin-token-hint"
            aria-invalid={error ? 'true' : undefined}
            value={token}
            onInput={(event) => setToken((event.currentTarget as HTMLInputElement).value)}
          />
          <p id="admin-token-hint" class="hint">
            Printed by <code>npm run host</code> as “admin token: …”, or the value of <code>HOST_ADMIN_TOKEN</code>.
          </p>
        </div>
        <ErrorAlert error={error} />
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
