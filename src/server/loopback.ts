/**
 * Whether a host names the loopback interface: the one rule behind both places that ask, with
 * the form of the host as its parameter, because the two places read different strings.
 *
 * - `'bind'`: the `HOST` setting, an address handed to `listen()` (config.ts: auth may be off
 *   only on loopback). Exact `localhost`, `::1` or a dotted 127.x.x.x, as written; no port, no
 *   brackets, no `*.localhost` — the OS resolver, not a browser, resolves a bind name, and it
 *   need not map `*.localhost` to loopback. Octets are not range-checked: `listen()` refuses an
 *   address like 127.999.0.1 itself.
 * - `'authority'`: an HTTP `Host` header (plugins/browser.ts, the DNS-rebinding guard): compared
 *   case-insensitively (RFC 3986 §3.2.2), with its `:port` and IPv6 `[...]` stripped, and
 *   `*.localhost` accepted (RFC 6761 §6.3: browsers resolve those to loopback themselves); a
 *   127.0.0.0/8 address must have octets 0–255. A missing header is not loopback.
 */
export type HostForm = 'bind' | 'authority';

/** True when `host`, read as `form` (see {@link HostForm}), names 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(host: string | null | undefined, form: HostForm): boolean {
  if (!host) return false;
  if (form === 'bind') {
    return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
  }
  const name = host
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '::1' ||
    /^127(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(name)
  );
}
