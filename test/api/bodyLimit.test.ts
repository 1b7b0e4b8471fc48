/**
 * How the body limit (1 MiB, 413 REQUEST_ENTITY_TOO_LARGE) and the payload limit (512 KiB of the
 * payload's JSON text as UTF-8) relate: a maximal payload fits when the body is sent as UTF-8
 * (JSON.stringify's way), but a client that escapes non-ASCII as \uXXXX sends each 2-byte
 * character as 6 bytes, and a payload within 512 KiB can then be refused 413 (docs/errors.md,
 * "Body and payload limits"; DESIGN.md §5).
 */
import { expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';

const api = useTestServer();

const PAYLOAD_BYTES = 524_288;
const BODY_BYTES = 1_048_576;
const QUERY = 'mutation($p: JSON) { enqueue(queue: "body-limit", group: "g", payload: $p) { id } }';

/** POST `body` as is; the status and the error codes of the answer. */
async function post(body: string): Promise<{ status: number; codes: string[] }> {
  const response = await fetch(api.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
  const json = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
  return {
    status: response.status,
    codes: (json.errors ?? []).map((e) => e.extensions?.code ?? ''),
  };
}

/** A string payload whose JSON text is exactly `PAYLOAD_BYTES` UTF-8 bytes of `char`. */
function maximal(char: string): string {
  const each = Buffer.byteLength(char);
  return char.repeat(Math.floor((PAYLOAD_BYTES - 2) / each));
}

it('a maximal ASCII payload fits in the body', async () => {
  const body = JSON.stringify({ query: QUERY, variables: { p: maximal('a') } });
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_BYTES);
  expect(await post(body)).toEqual({ status: 200, codes: [] });
});

it('a maximal non-ASCII payload sent as UTF-8 fits', async () => {
  const body = JSON.stringify({ query: QUERY, variables: { p: maximal('é') } });
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_BYTES);
  expect(await post(body)).toEqual({ status: 200, codes: [] });
});

it('the same payload with non-ASCII escaped as \\uXXXX passes 1 MiB: 413', async () => {
  const body = JSON.stringify({ query: QUERY, variables: { p: maximal('é') } }).replace(
    /é/g,
    '\\u00e9',
  );
  expect(Buffer.byteLength(body)).toBeGreaterThan(BODY_BYTES);
  expect(await post(body)).toEqual({ status: 413, codes: ['REQUEST_ENTITY_TOO_LARGE'] });
});

it('escaped, a payload of up to a third of the body limit fits', async () => {
  const chars = Math.floor((BODY_BYTES - 1_024) / 6);
  const body = JSON.stringify({ query: QUERY, variables: { p: 'é'.repeat(chars) } }).replace(
    /é/g,
    '\\u00e9',
  );
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_BYTES);
  expect(await post(body)).toEqual({ status: 200, codes: [] });
});
