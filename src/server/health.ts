/**
 * `GET /health` (liveness): 200 with a small JSON body, `{"status":"ok"}`, so a probe or a person
 * with curl sees an answer rather than an empty page (Yoga's own health check answers an empty
 * body). Readiness — Redis and the notification feed — is `/ready`'s job (yoga.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

const BODY = `${JSON.stringify({ status: 'ok' })}\n`;

/** Wrap `next` so `GET`/`HEAD /health` (any query string) is answered here, before Yoga. */
export function withHealth(next: Listener): Listener {
  return (req, res) => {
    const method = req.method ?? 'GET';
    const pathname = (req.url ?? '/').split('?', 1)[0];
    if (pathname !== '/health' || (method !== 'GET' && method !== 'HEAD')) return next(req, res);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(BODY)),
      'cache-control': 'no-store',
    });
    res.end(method === 'HEAD' ? undefined : BODY);
  };
}
