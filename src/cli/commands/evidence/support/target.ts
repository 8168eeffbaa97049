import { randomUUID } from 'node:crypto';
import type { EvidenceEvent } from '../../../../engine/evidence/event.js';
import { meaningOf } from '../../../../engine/evidence/meaning.js';
import type { EvidenceEventInfo } from '../../../../wire/evidence.js';
import type { Store } from '../../../../server/store/open/open-store.js';
import { privateLocalDataDir } from '../../../local-service/data-dir.js';
import type { Io } from '../../../output/io.js';
import type { ProgramOptions } from '../../../options/program-options.js';
import { createSession } from '../../../session/session.js';

/** Where `evidence` commands read and write: the account of a service, or the local data dir's store. */
export interface EvidenceTarget {
  /** Adds a batch in one transaction; how many were new. */
  add(events: readonly EvidenceEvent[]): Promise<number>;
  /** Every event, page after page, newest imports first. */
  all(): AsyncGenerator<EvidenceEventInfo>;
  /** Every event of one address. */
  of(email: string): Promise<EvidenceEventInfo[]>;
  delete(selection: { email?: string; source?: string }): Promise<number>;
  close(): Promise<void>;
}

/** The most events one call sends: what POST /v1/evidence takes at once. */
export { MAX_EVIDENCE_EVENTS as EVIDENCE_BATCH } from '../../../../wire/evidence.js';
const PAGE = 1_000;

function remoteTarget(program: ProgramOptions, io: Io): EvidenceTarget {
  const session = createSession(program, io);
  const client = session.authenticatedClient();
  return {
    add: async (events) => (await client.importEvidence(events, randomUUID())).added,
    async *all() {
      for (let cursor: string | undefined; ;) {
        const page = await client.evidencePage({ limit: PAGE, cursor });
        yield* page.events;
        if (page.next_cursor === null) return;
        cursor = page.next_cursor;
      }
    },
    of: async (email) => (await client.evidenceOf(email)).events,
    delete: async (selection) => (await client.deleteEvidence(selection)).deleted,
    close: () => session.close(),
  };
}

async function localTarget(dataDirFlag: string | undefined, io: Io): Promise<EvidenceTarget> {
  const dataDir = await privateLocalDataDir(dataDirFlag, io.env, (message) => io.quiet || io.stderr.write(`${message}\n`));
  const [{ openStore }, { localAccount }] = await Promise.all([
    import('../../../../server/store/open/open-store.js'),
    import('../../../local-service/local-account.js'),
  ]);
  const store: Store = await openStore({ dataDir });
  const userId = (await localAccount(store)).id;
  const info = ({ id: _id, ...event }: Awaited<ReturnType<Store['evidence']['listEvidence']>>['events'][number]): EvidenceEventInfo => ({
    ...event,
    meaning: meaningOf(event),
  });
  return {
    add: async (events) => (await store.evidence.addEvidence(userId, events)).added,
    async *all() {
      for (let cursor: string | undefined; ;) {
        const page = await store.evidence.listEvidence(userId, { limit: PAGE, cursor });
        yield* page.events.map(info);
        if (page.cursor === undefined) return;
        cursor = page.cursor;
      }
    },
    of: async (email) => (await store.evidence.listEvidence(userId, { email, limit: 10_000 })).events.map(info),
    delete: (selection) => store.evidence.deleteEvidence(userId, selection),
    close: () => store.close(),
  };
}

/** The target the flags name: `--local` the local data dir (`--data-dir`), else the service of the profile. */
export async function openTarget(options: { program: ProgramOptions; local: boolean; dataDir?: string }, io: Io): Promise<EvidenceTarget> {
  return options.local ? localTarget(options.dataDir, io) : remoteTarget(options.program, io);
}

/** Runs `work` on the target and closes it, whatever happens. */
export async function withTarget<T>(
  options: { program: ProgramOptions; local: boolean; dataDir?: string },
  io: Io,
  work: (target: EvidenceTarget) => Promise<T>,
): Promise<T> {
  const target = await openTarget(options, io);
  try {
    return await work(target);
  } finally {
    await target.close();
  }
}
