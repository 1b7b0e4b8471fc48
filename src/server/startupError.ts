/**
 * A setting that stops the server at start: one line naming the variable,
 * its value (secrets masked) and the cause, e.g.
 * `REDIS_URL=redis://:****@cache:6379: wrong user name or password (WRONGPASS)`.
 * `main.ts` prints it as `ringmaster: <message>` and exits with {@link STARTUP_EXIT_CODE}.
 */

/** The exit code of a start refused for a setting (configuration errors exit with 2). */
export const STARTUP_EXIT_CODE = 3;

/** Longest value echoed back (characters); a longer one is cut with an ellipsis. */
const MAX_SHOWN = 120;

export class StartupError extends Error {
  override readonly name = 'StartupError';
  /**
   * @param variable the environment variable to change (`REDIS_URL`, `DATA_DIR`, `PORT`, …)
   * @param value its value as shown (already masked where it holds a secret); undefined: unset
   * @param cause what is wrong and, where it helps, what to do; one line
   */
  constructor(
    readonly variable: string,
    value: string | undefined,
    cause: string,
  ) {
    super(`${setting(variable, value)}: ${oneLine(cause)}`);
  }
}

/** `NAME=value`, quoted when empty or holding spaces or quotes, cut when long; `NAME unset`. */
export function setting(variable: string, value: string | undefined): string {
  if (value === undefined) return `${variable} unset`;
  const cut = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
  return `${variable}=${cut === '' || /[\s"'\\]|[^\x20-\x7e]/.test(cut) ? JSON.stringify(cut) : cut}`;
}

/**
 * A Redis URL with its password replaced by `****`: `redis://user:****@host:6379/0`. The user
 * information is found as ioredis finds it (WHATWG URL, which ioredis 5 parses with): it runs
 * to the LAST `@` before the first `/`, `?` or `#`, and the password is what follows its first
 * colon, so `redis://:a@b@host` masks `a@b` whole. Where an `@` comes after a `/`, `?` or `#`,
 * the user meant a password holding that character (the parse then sends none, or a piece), so
 * everything up to that last `@` is masked too. A user part without a colon is masked whole:
 * ioredis sends it as a user name, but `redis://secret@host` is usually a password missing its
 * colon. Query parameters that carry a secret (`?password=`, which ioredis reads as the
 * password when the URL has none) have their values masked. Works on strings that are not URLs
 * too (a mistyped scheme, no scheme), masking the same way.
 */
export function maskUrl(url: string): string {
  const scheme = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\//.exec(url)?.[0] ?? '';
  // The query first: a `?password=` value may hold an `@` that is not the user information's.
  const rest = maskQuery(url.slice(scheme.length));
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  // The parse's user information ends at the authority's last `@`; a later `@` means a
  // password cut by a `/`, `?` or `#`, which must not show either.
  const lastAt = rest.lastIndexOf('@');
  const userEnd = authorityEnd >= 0 && lastAt > authorityEnd ? lastAt : authority.lastIndexOf('@');
  const masked =
    userEnd < 0
      ? `${scheme}${rest}`
      : `${scheme}${maskedUser(rest.slice(0, userEnd))}@${rest.slice(userEnd + 1)}`;
  return withoutSent(masked, url);
}

/** Secrets shorter than this (characters) are left to the text-level masking alone. */
const MIN_GUARDED = 4;

/** `user:password` → `user:****`; a user alone → `****`. */
function maskedUser(user: string): string {
  const colon = user.indexOf(':');
  return colon < 0 ? '****' : `${user.slice(0, colon + 1)}****`;
}

/**
 * `shown` with every copy of the secrets ioredis would send for `url` (its password, or a user
 * name sent alone), as written or percent-encoded, replaced by `****`: a last guard should the
 * text-level masking above ever part from the parse. ioredis 5 parses `redis[s]://` URLs with
 * WHATWG URL and others as `redis://` + the text, and reads `?password=` when there is none.
 */
function withoutSent(shown: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) ? url : `redis://${url}`);
  } catch {
    return shown;
  }
  const secrets = [
    parsed.password,
    parsed.password === '' ? parsed.username : '',
    parsed.searchParams.get('password') ?? '',
  ].flatMap((raw) => [raw, safeDecode(raw), encodeURIComponent(safeDecode(raw))]);
  let out = shown;
  for (const secret of new Set(secrets)) {
    // Shorter ones would mask pieces of ordinary words; their shape alone gives little away.
    if (secret.length >= MIN_GUARDED && secret !== '****') out = out.split(secret).join('****');
  }
  return out;
}

/** Query parameter names whose values are secrets (ioredis reads `password` from the query). */
const SECRET_PARAM = /pass|secret|token|auth|key$/i;

/** `host/0?password=x&db=1` → `host/0?password=****&db=1`. */
function maskQuery(text: string): string {
  const query = text.indexOf('?');
  if (query < 0) return text;
  const params = text
    .slice(query + 1)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=');
      const name = eq < 0 ? param : param.slice(0, eq);
      return eq >= 0 && SECRET_PARAM.test(safeDecode(name)) ? `${name}=****` : param;
    });
  return `${text.slice(0, query + 1)}${params.join('&')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
