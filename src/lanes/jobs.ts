/** Decoding of job hashes (`P:{Q}:job:<id>`) into {@link Job}s. */
import type { Job, JobState } from './types.js';

const STATES: Record<string, JobState> = {
  pending: 'PENDING',
  active: 'ACTIVE',
  completed: 'COMPLETED',
  dead: 'DEAD',
};

function int(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/**
 * A job from its hash fields (a flat `[field, value, …]` list or an HGETALL object).
 * A payload that is not valid JSON (written by another writer) is returned as its raw text.
 */
export function decodeJob(
  queue: string,
  id: string,
  fields: string[] | Record<string, string>,
): Job {
  const h: Record<string, string> = {};
  if (Array.isArray(fields)) {
    for (let i = 0; i + 1 < fields.length; i += 2) h[fields[i] as string] = fields[i + 1] as string;
  } else {
    Object.assign(h, fields);
  }
  let payload: unknown = null;
  if (h.payload !== undefined) {
    try {
      payload = JSON.parse(h.payload);
    } catch {
      payload = h.payload;
    }
  }
  return {
    id,
    queue,
    group: h.group ?? '',
    payload,
    state: STATES[h.state ?? ''] ?? 'PENDING',
    attempts: int(h.attempts) ?? 0,
    maxAttempts: int(h.maxAttempts) ?? 1,
    token: h.token ?? null,
    leaseUntil: int(h.leaseUntil),
    enqueuedAt: int(h.enqueuedAt),
    claimedAt: int(h.claimedAt),
    finishedAt: int(h.finishedAt),
    lastError: h.lastError ?? null,
  };
}
