/**
 * Bearer-token authentication (DESIGN.md §6): `Authorization: Bearer <token>` on HTTP and SSE,
 * `connectionParams.authorization` on WebSocket. Roles are enforced per field by the schema's
 * auth scopes; this module only says who the caller is.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { Role } from '../context.js';

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export class Authenticator {
  private readonly entries: { digest: Buffer; role: Role; name: string | undefined }[];

  /**
   * @param tokens token → role; null turns auth off (every caller is `admin`)
   * @param names token → name (`name=role:token` in AUTH_TOKENS), for the tokens that have one
   */
  constructor(
    tokens: ReadonlyMap<string, Role> | null,
    names: ReadonlyMap<string, string> = new Map(),
  ) {
    this.entries = tokens
      ? [...tokens].map(([token, role]) => ({
          digest: digest(token),
          role,
          name: names.get(token),
        }))
      : [];
    this.enabled = tokens !== null;
  }

  /** False when AUTH_TOKENS is unset. */
  readonly enabled: boolean;

  /**
   * The role of an `Authorization` value (`Bearer <token>`, or the bare token on WebSocket),
   * or null when it is missing or matches no token. Every configured token is compared, in
   * constant time over equal-length digests, so timing reveals neither which nor how much.
   */
  roleOf(authorization: unknown): Role | null {
    if (!this.enabled) return 'admin';
    const i = this.match(authorization);
    return i === null ? null : (this.entries[i]?.role ?? null);
  }

  /**
   * Which configured token an `Authorization` value carries — `token:<n>`, its place in
   * AUTH_TOKENS — or null when it carries none (or auth is off). A key for per-token bounds
   * that never holds the token itself. Compared as in {@link roleOf}.
   */
  tokenKey(authorization: unknown): string | null {
    if (!this.enabled) return null;
    const i = this.match(authorization);
    return i === null ? null : `token:${i}`;
  }

  /**
   * The place in AUTH_TOKENS of the token an `Authorization` value carries (`Bearer ` optional),
   * or null. Every entry is compared, in constant time on digests, so the time taken says
   * nothing about which entry (if any) matched; the last match wins.
   */
  private match(authorization: unknown): number | null {
    if (typeof authorization !== 'string' || authorization.length > 4096) return null;
    const token = authorization.replace(/^Bearer\s+/i, '').trim();
    if (token === '') return null;
    const presented = digest(token);
    let found: number | null = null;
    this.entries.forEach((entry, i) => {
      if (timingSafeEqual(entry.digest, presented)) found = i;
    });
    return found;
  }

  /**
   * Who an `Authorization` value's caller is in the steering history (DESIGN.md §4.6): its
   * token's name, else its token's role; `admin` when auth is off; null when it carries no
   * configured token. Compared as in {@link roleOf}.
   */
  actorOf(authorization: unknown): string | null {
    if (!this.enabled) return 'admin';
    const i = this.match(authorization);
    const entry = i === null ? undefined : this.entries[i];
    return entry === undefined ? null : (entry.name ?? entry.role);
  }

  /**
   * The caller's role, or UNAUTHENTICATED (HTTP 401) when auth is on and the token is
   * missing or unknown.
   */
  require(authorization: unknown): Role {
    const role = this.roleOf(authorization);
    if (role === null) {
      throw new GraphQLError('a valid bearer token is required', {
        extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
      });
    }
    return role;
  }
}
