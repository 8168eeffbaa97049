import { ProblemError } from '../http/errors.js';
import type { JobListPlace } from '../store/store.js';

/**
 * The `next_cursor` of a page of the job list: where the page ended (the last job's time and id),
 * opaque to clients, so that jobs made meanwhile neither repeat nor shift the next page.
 */
export function jobListCursor({ createdAt, id }: JobListPlace): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

/** The place a cursor names, or a 400 for one this service did not make. */
export function jobListPlace(cursor: string): JobListPlace {
  let place: unknown;
  try {
    place = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    place = undefined;
  }
  if (!Array.isArray(place) || place.length !== 2 || !place.every((part) => typeof part === 'string')) {
    throw new ProblemError('invalid_request', 'The cursor is not one this service gave: start again without it.');
  }
  const [createdAt, id] = place as [string, string];
  return { createdAt, id };
}
