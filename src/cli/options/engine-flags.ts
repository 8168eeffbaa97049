import { Option, type Command } from 'commander';
import { isIP } from 'node:net';
import type { EngineOptions } from '../../engine/core/types.js';
import { UsageError } from '../output/errors.js';
import type { ParsedCommand } from './parsed-command.js';

type Parse = (raw: string, name: string) => unknown;

interface EngineFlag {
  key: keyof EngineOptions;
  flag: string;
  env: string;
  description: string;
  parse: Parse;
  /** Repeatable flag whose environment variable is a comma list. */
  list?: boolean;
}

/** A flag's whole number within [min, max], or a usage error naming the flag. */
export const integer =
  (min: number, max: number) =>
  (raw: string, name: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };
const text: Parse = (raw, name) => {
  if (raw.trim() === '') throw new UsageError(`${name} must not be empty`);
  return raw.trim();
};
const port = integer(1, 65_535);
const ipAddress: Parse = (raw, name) => {
  if (isIP(raw.trim()) === 0) throw new UsageError(`${name} must be an IP address of this host, got "${raw}"`);
  return raw.trim();
};
/**
 * A proxy URL, checked in full by the engine (src/engine/net/proxy-url.ts, not loaded here so that
 * `--help` stays light). A password is taken from the environment only: on the command line every
 * user of this machine can read it (ps, /proc), and shells keep it in their history. The value is
 * never echoed in a message, for the same reason.
 */
const proxyUrl: Parse = (raw, name) => {
  const url = URL.canParse(raw.trim()) ? new URL(raw.trim()) : null;
  if (url?.protocol !== 'socks5:') throw new UsageError(`${name} must be a socks5:// URL, such as socks5://host:1080`);
  if (url.password !== '' && name.startsWith('--')) {
    throw new UsageError(`${name} must not carry a password`, 'set MAILVERIFY_PROXY=socks5://user:password@host:port in the environment instead');
  }
  return raw.trim();
};
const milliseconds = integer(0, 3_600_000);
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** `30d`, `12h`, `90m`, `1.5s`, `500ms` or plain seconds, as milliseconds, or a usage error naming the flag (and `hint`, what else it takes). */
export function durationMs(raw: string, name: string, hint = ''): number {
  const match = /^(\d+(?:\.\d+)?)(ms|[smhd])?$/.exec(raw.trim());
  if (!match) throw new UsageError(`${name}: "${raw}" is no duration; use a number with s, m, h or d (e.g. 1h)${hint ? `, ${hint}` : ''}`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's']!);
}

/** `1m,6m,16m,31m,61m`: times after the first answer, each later than the one before; `none`: never asked again. */
const retrySchedule: Parse = (raw, name) => {
  if (raw.trim() === 'none') return [];
  const hint = 'a comma list such as 1m,6m,16m,31m,61m, or none';
  const times = raw.split(',').map((part) => durationMs(part, name, hint));
  if (times.some((time, index) => time <= 0 || time <= (times[index - 1] ?? 0) || time > 86_400_000)) {
    throw new UsageError(`${name}: "${raw}" must list times after the first answer, each later than the one before and at most 1d`, `use ${hint}`);
  }
  return times;
};

/** The flags that --retry-schedule replaced: refused with the new one named, never silently ignored. */
const RETIRED_FLAGS = [
  { flag: '--greylist-retry <ms>', env: 'MAILVERIFY_GREYLIST_RETRY' },
  { flag: '--greylist-budget <ms>', env: 'MAILVERIFY_GREYLIST_BUDGET' },
];

function retired(name: string): UsageError {
  return new UsageError(
    `${name} is retired: temporary answers are asked again on a schedule`,
    'use --retry-schedule 1m,6m,16m,31m,61m (or none) [env MAILVERIFY_RETRY_SCHEDULE]',
  );
}

/** docs/architecture.md "The engine": these flag and environment names are fixed so that scripts can rely on them. */
const ENGINE_FLAGS: EngineFlag[] = [
  {
    key: 'dnsServers',
    flag: '--dns-server <ip[:port]>',
    env: 'MAILVERIFY_DNS_SERVERS',
    description: 'DNS server to ask, repeatable (default: the system resolver)',
    parse: text,
    list: true,
  },
  { key: 'smtpPort', flag: '--smtp-port <n>', env: 'MAILVERIFY_SMTP_PORT', description: 'TCP port of the SMTP servers probed (default 25)', parse: port },
  { key: 'heloName', flag: '--helo <name>', env: 'MAILVERIFY_HELO', description: 'name announced in EHLO (default: this host name)', parse: text },
  {
    key: 'mailFrom',
    flag: '--mail-from <address>',
    env: 'MAILVERIFY_MAIL_FROM',
    description: 'envelope sender of the probe (default: verify@<helo name>)',
    parse: text,
  },
  { key: 'dnsblZones', flag: '--dnsbl-zone <zone>', env: 'MAILVERIFY_DNSBL_ZONES', description: 'DNSBL zone to ask, repeatable', parse: text, list: true },
  {
    key: 'webPorts',
    flag: '--web-port <n>',
    env: 'MAILVERIFY_WEB_PORT',
    description: 'port for the web reachability check, repeatable (443 speaks HTTPS)',
    parse: port,
    list: true,
  },
  { key: 'connectTimeoutMs', flag: '--connect-timeout <ms>', env: 'MAILVERIFY_CONNECT_TIMEOUT', description: 'SMTP connect timeout', parse: milliseconds },
  {
    key: 'commandTimeoutMs',
    flag: '--command-timeout <ms>',
    env: 'MAILVERIFY_COMMAND_TIMEOUT',
    description: 'timeout of every SMTP command',
    parse: milliseconds,
  },
  { key: 'dnsTimeoutMs', flag: '--dns-timeout <ms>', env: 'MAILVERIFY_DNS_TIMEOUT', description: 'timeout of one DNS query', parse: milliseconds },
  {
    key: 'retryScheduleMs',
    flag: '--retry-schedule <list>',
    env: 'MAILVERIFY_RETRY_SCHEDULE',
    description: 'when a temporary answer (greylisting, throttling) is asked again, after the first: e.g. 1m,6m,16m,31m,61m (the default), 5s,20s, or none',
    parse: retrySchedule,
  },
  { key: 'concurrency', flag: '--concurrency <n>', env: 'MAILVERIFY_CONCURRENCY', description: 'SMTP sessions open at once in all', parse: integer(1, 10_000) },
  {
    key: 'proxies',
    flag: '--proxy <url>',
    env: 'MAILVERIFY_PROXY',
    description:
      'send SMTP connections through this SOCKS5 proxy, socks5://host:port, repeatable: each proxy is one egress of the pool (credentials only in the environment: socks5://user:pass@host:port)',
    parse: proxyUrl,
    list: true,
  },
  {
    key: 'sourceAddresses',
    flag: '--source-address <ip>',
    env: 'MAILVERIFY_SOURCE_ADDRESS',
    description:
      'make SMTP connections from this local address, repeatable: each address is one egress of the pool (with --proxy: one address, the one proxies are reached from)',
    parse: ipAddress,
    list: true,
  },
  {
    key: 'port25CheckHosts',
    flag: '--port25-check-host <host>',
    env: 'MAILVERIFY_PORT25_CHECK_HOSTS',
    description: "mail host that confirms a suspected blocked port 25, repeatable (default: the providers' mail hosts; never a customer's)",
    parse: text,
    list: true,
  },
  {
    key: 'egressCooldownMs',
    flag: '--egress-cooldown <duration>',
    env: 'MAILVERIFY_EGRESS_COOLDOWN',
    description: 'how long an egress a mail provider refused for reputation is not used there while another egress is left, e.g. 30m (default 1h)',
    parse: durationMs,
  },
  {
    key: 'perHostConcurrency',
    flag: '--per-host-concurrency <n>',
    env: 'MAILVERIFY_PER_HOST_CONCURRENCY',
    description: 'SMTP sessions open at once per MX host',
    parse: integer(1, 1_000),
  },
  {
    key: 'providerRulesFile',
    flag: '--provider-rules <file>',
    env: 'MAILVERIFY_PROVIDER_RULES',
    description: 'provider rules JSON by MX host suffix, over the built-in ones (session limits, pauses, what a 250 proves)',
    parse: text,
  },
];

const BOOLEAN_ENV = { allowPrivateNetworks: 'MAILVERIFY_ALLOW_PRIVATE_NETWORKS', webCheck: 'MAILVERIFY_WEB_CHECK' } as const;

function optionName(flag: string): string {
  return flag.split(' ')[0]!;
}

/** Adds every engine flag to a command (`verify --local`, `bulk submit --local`, `serve`, `worker` and `doctor` share them). */
export function addEngineFlags(command: Command): Command {
  for (const def of ENGINE_FLAGS) {
    const parseArg = (raw: string, previous: unknown): unknown => {
      const value = def.parse(raw, optionName(def.flag));
      return def.list ? [...((previous as unknown[] | undefined) ?? []), value] : value;
    };
    command.option<unknown>(def.flag, `${def.description} [env ${def.env}]`, parseArg);
  }
  for (const { flag } of RETIRED_FLAGS) {
    command.addOption(
      new Option(flag).hideHelp().argParser(() => {
        throw retired(optionName(flag));
      }),
    );
  }
  command.option('--allow-private-networks', `probe hosts on loopback and private networks [env ${BOOLEAN_ENV.allowPrivateNetworks}=1]`);
  command.option('--no-web-check', `skip the web reachability check [env ${BOOLEAN_ENV.webCheck}=0]`);
  return command;
}

/** The engine flags of a command line, before the environment fills in the rest (engineOptionsFrom). */
export interface EngineFlags {
  /** The options whose flags were given, each value checked by the flag's parser. */
  values: Partial<EngineOptions>;
  allowPrivateNetworks: boolean;
  /** --no-web-check typed on the command line. */
  noWebCheck: boolean;
  /** Every engine flag typed on the command line, e.g. `['--dns-server']`: `verify` without `--local` refuses them rather than ignore them. */
  given: string[];
}

const ENGINE_FLAG_NAMES = new Set([...ENGINE_FLAGS.map((def) => optionName(def.flag)), '--allow-private-networks', '--no-web-check']);

export function engineFlags({ flags, given }: ParsedCommand): EngineFlags {
  const values: Record<string, unknown> = {};
  for (const def of ENGINE_FLAGS) {
    const value = flags[new Option(def.flag).attributeName()];
    if (value !== undefined) values[def.key] = value;
  }
  return {
    values: values as Partial<EngineOptions>,
    allowPrivateNetworks: flags.allowPrivateNetworks === true,
    noWebCheck: given.has('--no-web-check'),
    given: [...given].filter((name) => ENGINE_FLAG_NAMES.has(name)),
  };
}

function envFlag(raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  return !['0', 'false', 'no', 'off'].includes(raw.trim().toLowerCase());
}

/** The engine's options are the service's business when it verifies: giving them without --local would mislead. */
export function refuseEngineFlagsWithoutLocal({ given }: EngineFlags): void {
  if (given.length > 0) {
    throw new UsageError(`${given.join(', ')} ${given.length === 1 ? 'needs' : 'need'} --local`, 'without --local the service verifies with its own settings');
  }
}

/**
 * Engine options complete (defaults filled in) and checked by the engine itself: what the flags
 * cannot check without loading it (a proxy URL with a path) is a usage error too, not a crash.
 */
export async function resolvedEngineOptions(flags: EngineFlags, env: NodeJS.ProcessEnv = process.env): Promise<EngineOptions> {
  const [{ resolveEngineOptions }, { ProviderRulesError }] = await Promise.all([import('../../engine/options.js'), import('../../engine/rules/rules-file.js')]);
  try {
    return resolveEngineOptions(engineOptionsFrom(flags, env));
  } catch (error) {
    // A bad rules file is bad input: its message names the file, the line and the field.
    if (error instanceof RangeError || error instanceof ProviderRulesError) throw new UsageError(error.message);
    throw error;
  }
}

/** Engine options from a command's flags, then the environment; the engine fills in defaults. */
export function engineOptionsFrom(flags: EngineFlags, env: NodeJS.ProcessEnv = process.env): Partial<EngineOptions> {
  const options: Record<string, unknown> = { ...flags.values };
  for (const { env: name } of RETIRED_FLAGS) if (env[name] !== undefined && env[name].trim() !== '') throw retired(name);
  for (const def of ENGINE_FLAGS) {
    const raw = env[def.env];
    if (options[def.key] === undefined && raw !== undefined && raw.trim() !== '') {
      const parts = def.list
        ? raw
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean)
        : [raw];
      const values = parts.map((part) => def.parse(part, def.env));
      options[def.key] = def.list ? values : values[0];
    }
  }
  options.allowPrivateNetworks = flags.allowPrivateNetworks || envFlag(env[BOOLEAN_ENV.allowPrivateNetworks]) === true;
  options.webCheck = flags.noWebCheck ? false : (envFlag(env[BOOLEAN_ENV.webCheck]) ?? true);
  return options as Partial<EngineOptions>;
}
