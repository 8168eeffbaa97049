import { hostname } from 'node:os';
import { egressPool } from './net/egress-pool.js';
import { loadProviderRules } from './rules/provider-rules.js';
import type { EngineOptions } from './core/types.js';

const MIN_EGRESS_COOLDOWN_MS = 60_000;

/** Defaults chosen for probing real mail servers politely from a single host. */
export const DEFAULT_ENGINE_OPTIONS: Omit<EngineOptions, 'heloName' | 'mailFrom'> = {
  dnsServers: [],
  dnsTimeoutMs: 5_000,
  smtpPort: 25,
  connectTimeoutMs: 10_000,
  commandTimeoutMs: 15_000,
  concurrency: 50,
  perHostConcurrency: 4,
  // 1, 6, 16, 31 and 61 minutes: past postgrey's 5 minutes and the 15 to 30 of many hosts and providers' throttles.
  retryScheduleMs: [1, 6, 16, 31, 61].map((minutes) => minutes * 60_000),
  dnsblZones: ['zen.spamhaus.org', 'dbl.spamhaus.org'],
  webCheck: true,
  webPorts: [443, 80],
  allowPrivateNetworks: false,
  proxies: [],
  sourceAddresses: [],
  egressCooldownMs: 3_600_000,
  port25CheckHosts: [],
  providerRulesFile: null,
};

/**
 * Fill in every option not given. The HELO name defaults to this host's name and the sender to
 * an address at it: a probe announces who we are and never borrows the target's identity.
 */
export function resolveEngineOptions(partial: Partial<EngineOptions> = {}): EngineOptions {
  const given = Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)) as Partial<EngineOptions>;
  const heloName = given.heloName ?? (hostname() || 'localhost');
  const options = {
    ...DEFAULT_ENGINE_OPTIONS,
    ...given,
    heloName,
    mailFrom: given.mailFrom ?? `verify@${heloName}`,
  };
  // Below one, no session could ever start and verifyMany would wait for ever: refuse up front.
  for (const limit of ['concurrency', 'perHostConcurrency'] as const) {
    if (!Number.isInteger(options[limit]) || options[limit] < 1) {
      throw new RangeError(`engine option ${limit} must be a whole number of at least 1, got ${options[limit]}`);
    }
  }
  // The proxies, the source addresses and how they combine, checked whole (a RangeError naming the option).
  egressPool(options);
  // Shorter, a bench could end before the address it rerouted is answered, and bounce it back and forth.
  if (!Number.isInteger(options.egressCooldownMs) || options.egressCooldownMs < MIN_EGRESS_COOLDOWN_MS) {
    throw new RangeError(`engine option egressCooldownMs must be at least ${MIN_EGRESS_COOLDOWN_MS / 60_000} minute, got ${options.egressCooldownMs} ms`);
  }
  // Read now, so that a bad file is said before anything starts (a ProviderRulesError naming its line).
  loadProviderRules(options.providerRulesFile);
  return options;
}
