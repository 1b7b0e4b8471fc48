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
 * A Redis URL with its password replaced by `****`: `redis://user:****@host:6379/0`. A user
 * part without a colon is masked whole, since ioredis reads `redis://secret@host` as a password.
 * Works on strings that are not URLs too (a mistyped scheme), masking the same way.
 */
export function maskUrl(url: string): string {
  return url.replace(/^([^/]*\/\/)([^@/]*)@/, (_all, scheme: string, auth: string) => {
    const colon = auth.indexOf(':');
    return `${scheme}${colon < 0 ? '****' : `${auth.slice(0, colon + 1)}****`}@`;
  });
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
