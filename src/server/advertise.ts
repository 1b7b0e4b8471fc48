/**
 * What the start line advertises. A server bound to a wildcard address (`HOST=0.0.0.0` or `::`)
 * listens on every interface, but `http://0.0.0.0:4000` is not an address to give anyone: the
 * URL advertised is the loopback one (reachable on this machine), and the machine's name and
 * interface addresses are listed for reaching it from elsewhere.
 */
import os from 'node:os';

export interface Advertised {
  /** `http://host:port`, reachable from this machine. */
  readonly url: string;
  /** `http://name:port` for the machine's host name and interface addresses (wildcard only). */
  readonly elsewhere: string[];
}

const bracket = (address: string): string => (address.includes(':') ? `[${address}]` : address);

/**
 * @param address the bound address (`server.address().address`)
 * @param port the bound port
 */
export function advertise(address: string, port: number): Advertised {
  const any4 = address === '0.0.0.0';
  const any6 = address === '::' || address === '::0';
  if (!any4 && !any6) return { url: `http://${bracket(address)}:${port}`, elsewhere: [] };
  const names = new Set<string>([os.hostname()]);
  for (const list of Object.values(os.networkInterfaces())) {
    for (const net of list ?? []) {
      if (net.internal || (any4 && net.family !== 'IPv4')) continue;
      // A link-local IPv6 address needs a zone id a URL cannot carry portably.
      if (net.family === 'IPv6' && net.address.toLowerCase().startsWith('fe80:')) continue;
      names.add(net.address);
    }
  }
  return {
    // '::' also accepts IPv4 unless the system says otherwise; 127.0.0.1 works either way for
    // the common dual-stack case, [::1] for an IPv6-only bind.
    url: `http://${any4 ? '127.0.0.1' : '[::1]'}:${port}`,
    elsewhere: [...names].map((name) => `http://${bracket(name)}:${port}`),
  };
}
