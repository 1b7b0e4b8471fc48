/** The top bar: name, live-connection state, role, sign-out. */
import type { ApiError, LinkState } from '../api';
import type { Role } from '../gql/graphql';

const LINK_LABEL: Record<LinkState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
};

export function Header(props: {
  /** Null while signing in (nothing is connected yet). */
  link: LinkState | null;
  role: Role | null;
  httpError: ApiError | null;
  signedIn: boolean;
  onSignOut: () => void;
}) {
  const { link, role, httpError, signedIn, onSignOut } = props;
  return (
    <header class="top">
      <div class="brand">
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
          <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" stroke-width="2.2" />
          <circle cx="12" cy="3" r="2.6" fill="currentColor" />
        </svg>
        Ringmaster
      </div>
      <div class="top-right">
        {httpError && httpError.code === 'NETWORK' && (
          <span class="pill pill-bad" title={httpError.message}>
            server unreachable
          </span>
        )}
        {link && (
          <span class={`pill link-${link}`} data-testid="link" title="graphql-ws connection">
            <span class="dot" />
            {LINK_LABEL[link]}
          </span>
        )}
        {role && (
          <span class="pill" data-testid="role" title="the role of your token">
            {role === 'ADMIN' ? 'admin' : role === 'WORKER' ? 'worker · read-only' : 'read-only'}
          </span>
        )}
        <a class="top-link" href="/graphql" target="_blank" rel="noreferrer">
          GraphiQL
        </a>
        {signedIn && (
          <button type="button" class="btn btn-ghost" onClick={onSignOut}>
            Sign out
          </button>
        )}
      </div>
    </header>
  );
}
