import { StoreFault } from '../model.js';

/** SQLite's codes for a database that cannot answer now (locked past the busy timeout, I/O trouble, a full disk): conditions, not bugs. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL)/;

function asStoreFault(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE.test(code) ? new StoreFault(error) : error;
}

/** A synchronous part as the Store's asynchronous interface sees it: every method answers with a Promise. */
export type Promised<Part> = {
  [Name in keyof Part]: Part[Name] extends (...args: infer Args) => infer Result ? (...args: Args) => Promise<Awaited<Result>> : Part[Name];
};

/**
 * Presents a synchronous SQLite part through the Store's asynchronous interface, with no method
 * written twice: each call runs at once (its transaction whole) and its outcome, or its error,
 * settles the Promise (a database that cannot answer as a StoreFault).
 */
export function promised<Part extends object>(part: Part): Promised<Part> {
  return new Proxy(part, {
    get(target, name) {
      const member: unknown = Reflect.get(target, name);
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        try {
          return Promise.resolve(member.apply(target, args));
        } catch (error) {
          return Promise.reject(asStoreFault(error));
        }
      };
    },
  }) as unknown as Promised<Part>;
}
