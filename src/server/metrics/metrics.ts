import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { providerOfMxHost, type EgressStanding, type NetworkWatch, type StandingCheck } from '../../engine/index.js';
import type { SmtpObserver } from '../../engine/core/types.js';
import type { RunnerMetrics } from '../jobs/runner.js';
import type { MaintenanceMetrics } from '../maintenance/service.js';
import type { EgressBenchStore, WorkQueue } from '../store/store.js';

/**
 * Everything `serve` and `worker` show an operator, in Prometheus's text format (docs/architecture.md
 * "Metrics"), on a registry of this process's own. Label values are bounded: routes as declared
 * (not paths), providers from data/providers.json (other hosts are "other"), reason codes from
 * their enum, store parts and methods from the Store interface.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({
    name: 'mailverify_http_requests_total',
    help: 'HTTP requests answered, by route (as declared), method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'mailverify_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route and method',
    labelNames: ['route', 'method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly leaseEvents = new Counter({
    name: 'mailverify_leases_total',
    help: 'Leases on chunks of bulk work, by event: claimed, renewed, lost (to another runner), taken_over (items freed from a runner that is gone)',
    labelNames: ['event'],
    registers: [this.registry],
  });
  private readonly chunksInFlight = new Gauge({
    name: 'mailverify_runner_chunks_in_flight',
    help: 'Chunks this runner is working',
    registers: [this.registry],
  });
  private readonly itemsInFlight = new Gauge({
    name: 'mailverify_runner_items_in_flight',
    help: 'Addresses in the chunks this runner is working',
    registers: [this.registry],
  });
  private readonly sessionsOpen = new Gauge({
    name: 'mailverify_smtp_sessions_open',
    help: 'SMTP sessions open now, by mail provider',
    labelNames: ['provider'],
    registers: [this.registry],
  });
  private readonly rcptReplies = new Counter({
    name: 'mailverify_smtp_rcpt_replies_total',
    help: 'RCPT TO replies, by mail provider, the SMTP verdict, the reason code and the egress they came through (a refusal of our egress counted even when the address is then asked through another)',
    labelNames: ['provider', 'status', 'reason_code', 'egress'],
    registers: [this.registry],
  });
  private readonly sessionRefusals = new Counter({
    name: 'mailverify_smtp_session_refusals_total',
    help: 'SMTP sessions a mail host refused before any RCPT (greeting, EHLO, MAIL FROM), by mail provider, reason code and egress',
    labelNames: ['provider', 'reason_code', 'egress'],
    registers: [this.registry],
  });
  readonly storeCalls = new Histogram({
    name: 'mailverify_store_call_duration_seconds',
    help: 'Time of a store call, by part and method',
    labelNames: ['part', 'method'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly storeErrors = new Counter({
    name: 'mailverify_store_errors_total',
    help: 'Store calls that failed, by part, method and kind (unavailable: the database did not answer)',
    labelNames: ['part', 'method', 'kind'],
    registers: [this.registry],
  });
  readonly creditsCharged = new Counter({
    name: 'mailverify_credits_charged_total',
    help: 'Tokens taken from balances for verification',
    registers: [this.registry],
  });
  readonly creditsRefunded = new Counter({ name: 'mailverify_credits_refunded_total', help: 'Tokens given back', registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'mailverify_' });
  }

  /** For the HTTP app's response hook. */
  http(route: string, method: string, status: number, seconds: number): void {
    this.httpRequests.inc({ route, method, status: String(status) });
    this.httpDuration.observe({ route, method }, seconds);
  }

  private readonly retries = new Counter({
    name: 'mailverify_retries_total',
    help: 'Temporary answers of bulk work, by outcome: waiting (asked again later), settled (a final answer on a later try), exhausted (still temporary after the last try: unknown)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  readonly runner: RunnerMetrics = {
    leases: (event, count) => this.leaseEvents.inc({ event }, count),
    retries: (outcome) => this.retries.inc({ outcome }),
    inFlight: (chunks, items) => {
      this.chunksInFlight.set(chunks);
      this.itemsInFlight.set(items);
    },
  };

  private readonly maintenanceRuns = new Counter({
    name: 'mailverify_maintenance_runs_total',
    help: 'Turns of each maintenance service (rescuer, due_waker, job_retention, evidence_retention, upload_retention, webhook_pruner, bench_expirer), by outcome: ok, error',
    labelNames: ['service', 'outcome'],
    registers: [this.registry],
  });
  private readonly maintenanceRows = new Counter({
    name: 'mailverify_maintenance_rows_total',
    help: 'Rows each maintenance service changed: items freed or woken, rows deleted',
    labelNames: ['service'],
    registers: [this.registry],
  });
  private readonly maintenanceDuration = new Histogram({
    name: 'mailverify_maintenance_run_duration_seconds',
    help: 'Time of one turn of a maintenance service',
    labelNames: ['service'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  readonly maintenance: MaintenanceMetrics = {
    ran: (service, outcome, rows, seconds) => {
      this.maintenanceRuns.inc({ service, outcome });
      this.maintenanceRows.inc({ service }, rows);
      this.maintenanceDuration.observe({ service }, seconds);
    },
  };

  readonly smtp: SmtpObserver = {
    sessionOpened: (host) => this.sessionsOpen.inc({ provider: providerLabel(host) }),
    sessionClosed: (host) => this.sessionsOpen.dec({ provider: providerLabel(host) }),
    rcptAnswered: (host, status, code, egress) => this.rcptReplies.inc({ provider: providerLabel(host), status, reason_code: code, egress }),
    sessionRefused: (host, code, egress) => this.sessionRefusals.inc({ provider: providerLabel(host), reason_code: code, egress }),
  };

  /** Port 25 and the resolver as the engine last found them: 1 on the current state, 0 on the others. */
  watchNetwork(network: NetworkWatch): void {
    const registry = this.registry;
    new Gauge({
      name: 'mailverify_port25_state',
      help: "Outbound SMTP as the engine found it (1 on the current state; suspect: customers' hosts timed out, being confirmed against the check hosts)",
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const now = network.status().port25.state;
        for (const state of ['unknown', 'open', 'suspect', 'blocked']) this.set({ state }, state === now ? 1 : 0);
      },
    });
    new Gauge({
      name: 'mailverify_resolver_state',
      help: 'The resolver as the engine found it (1 on the current state)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const now = network.status().resolver.state;
        for (const state of ['unknown', 'truthful', 'untruthful']) this.set({ state }, state === now ? 1 : 0);
      },
    });
  }

  /**
   * Each egress's standing as last checked (standing-watch.ts): listed per DNSBL zone, and whether
   * each check found a problem. Labels are the configured egresses and zones: bounded.
   */
  watchEgressStanding(latest: () => readonly EgressStanding[]): void {
    new Gauge({
      name: 'mailverify_egress_listed',
      help: 'Whether the address mail hosts see from an egress is listed in a DNSBL zone (1) or not (0), as last checked; a zone that gave no answer is left out',
      labelNames: ['egress', 'zone'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const standing of latest())
          for (const [zone, listed] of Object.entries(standing.listed)) this.set({ egress: standing.egress, zone }, listed ? 1 : 0);
      },
    });
    new Gauge({
      name: 'mailverify_egress_standing_problem',
      help: 'Whether a check of an egress found a problem (1) or not (0), as last checked: blocklists, reverse_dns (FCrDNS), helo_ptr (HELO name is the PTR name); a check that could not tell is left out',
      labelNames: ['egress', 'check'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const standing of latest()) {
          for (const [check, status] of Object.entries(standing.checks)) {
            if (status !== 'skipped') this.set({ egress: standing.egress, check: STANDING_CHECK_LABELS[check as StandingCheck] }, status === 'problem' ? 1 : 0);
          }
        }
      },
    });
  }

  /**
   * Egresses benched now, per provider (docs/architecture.md "Egress"), read from the store at each
   * scrape (shared by every node). A bench covers a domain, or a whole provider (`*.` and its rule's
   * suffix): shown as its known provider, else `other`, so that labels stay bounded and name no customer's domain.
   */
  watchBenches(benches: Pick<EgressBenchStore, 'inForce'>): void {
    new Gauge({
      name: 'mailverify_egress_benched',
      help: 'Egresses benched now at a mail provider (a refusal of our egress for its reputation), by egress and provider (known providers, else other)',
      labelNames: ['egress', 'provider'],
      registers: [this.registry],
      async collect() {
        const inForce = await benches.inForce().catch(() => undefined);
        if (!inForce) return;
        this.reset();
        for (const bench of inForce) this.inc({ egress: bench.egress, provider: providerLabel(bench.provider) });
      },
    });
  }

  /** Addresses of every unfinished job by status, read from the store at each scrape (shared by every node). */
  watchQueue(queue: WorkQueue): void {
    new Gauge({
      name: 'mailverify_items',
      help: 'Addresses of unfinished jobs without a final result, by status: pending (claimable), leased (being verified) or waiting (for the next try of a temporary answer)',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        const depth = await queue.depth().catch(() => undefined);
        if (!depth) return;
        this.set({ status: 'pending' }, depth.pending);
        this.set({ status: 'leased' }, depth.leased);
        this.set({ status: 'waiting' }, depth.waiting);
      },
    });
  }
}

const STANDING_CHECK_LABELS: Record<StandingCheck, string> = { blocklists: 'blocklists', 'reverse dns': 'reverse_dns', 'helo and ptr': 'helo_ptr' };

function providerLabel(host: string): string {
  return providerOfMxHost(host) ?? 'other';
}
