import type { FastifyInstance } from 'fastify';
import { VERDICTS } from '../../../engine/core/types.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { signedIn } from '../common/signed-in.js';
import { creditsChart, monthOfUsage, usageSince, verdictsChart } from '../common/usage-chart.js';

/** Ledger lines the overview shows, newest first. */
const RECENT_LINES = 10;

export function overviewPages(app: FastifyInstance, { store, refundUnknown = false }: DashboardConfig): void {
  app.get('/', async (request, reply) => {
    const { user } = signedIn(request);
    const now = new Date();
    const since = usageSince(now);
    // Two sums by day, over the window only (docs/architecture.md "The dashboard").
    const [credits, verdicts, recent] = await Promise.all([
      store.dashboard.dailyCredits(user.id, since),
      store.dashboard.dailyVerdicts(user.id, since),
      store.accounts.ledger(user.id, RECENT_LINES),
    ]);
    const usage = monthOfUsage(credits, verdicts, now);
    // The ledger keeps a deleted job's rows (what it cost): they say the job was deleted rather than link to a 404.
    const jobIds = [...new Set(recent.flatMap((entry) => (entry.jobId === null ? [] : [entry.jobId])))];
    const found = await Promise.all(jobIds.map((jobId) => store.jobs.getJob(user.id, jobId)));
    const deletedJobs = new Set(jobIds.filter((_, at) => found[at] === undefined));
    return renderPage(request, reply, 'overview', {
      title: 'Overview',
      balance: user.balance,
      rateLimit: { limit: user.rateLimit, windowSeconds: user.rateWindowSeconds },
      refundUnknown,
      usage,
      activeDays: usage.filter((day) => day.charged + day.refunded + day.granted + day.results > 0).reverse(),
      creditsChart: creditsChart(usage),
      verdictsChart: verdictsChart(usage),
      verdictNames: VERDICTS,
      recent: recent.reverse(),
      deletedJobs,
    });
  });
}
