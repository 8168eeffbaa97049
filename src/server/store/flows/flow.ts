/**
 * The decisions a store makes inside one transaction (which credit to take, when a key replays,
 * whose work comes next) are written once, as generator functions over the statements they need,
 * and each dialect runs them: SQLite synchronously inside its IMMEDIATE transaction (a
 * better-sqlite3 transaction cannot span an await), PostgreSQL awaiting each statement on the
 * transaction's connection. A flow yields what a statement returns (a value or a Promise of one)
 * and gets the value back: `const balance = yield* step(steps.balanceOf(userId))`.
 */
export type Awaitable<T> = T | Promise<T>;

export type Flow<T> = Generator<unknown, T, unknown>;

/** One statement of a flow: its outcome, awaited when the dialect answers with a Promise. */
export function* step<T>(outcome: Awaitable<T>): Flow<T> {
  return (yield outcome) as T;
}

/** Runs a flow whose statements answer at once (SQLite); call it inside the dialect's transaction. */
export function runNow<T>(flow: Flow<T>): T {
  let next = flow.next();
  while (!next.done) {
    if (next.value instanceof Promise) throw new Error('a synchronous store flow was handed a Promise');
    next = flow.next(next.value);
  }
  return next.value;
}

/** Runs a flow whose statements answer later (PostgreSQL); call it inside the dialect's transaction. */
export async function runAwaiting<T>(flow: Flow<T>): Promise<T> {
  let next = flow.next();
  while (!next.done) next = flow.next(await next.value);
  return next.value;
}
