import type { Diagnosis } from '../../engine/diagnose.js';
import { terminalSafe, toSafeJson } from '../../text/sanitize.js';
import { engineFlags, resolvedEngineOptions, type EngineFlags } from '../options/engine-flags.js';
import type { Io } from '../output/io.js';
import { listFlag, type ParsedCommand } from '../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../options/program-options.js';
import { CliError, ExitCode } from '../output/errors.js';
import { createSession, tokenOrigin, type Session } from '../session/session.js';

/** `doctor`'s options: the same engine flags as `verify --local`, and the mail hosts to try. */
export interface DoctorOptions {
  program: ProgramOptions;
  engine: EngineFlags;
  /** --mx-host, repeated. */
  mxHosts?: string[];
}

export function parse(parsed: ParsedCommand): DoctorOptions {
  return { program: programOptions(parsed.program), engine: engineFlags(parsed), mxHosts: listFlag(parsed.flags, 'mxHost') };
}

/** Beyond this, JWT lifetimes and the service's timestamps go wrong; the Date header is good to a second. */
const CLOCK_SKEW_LIMIT_MS = 60_000;

const STATUS_COLOR = { ok: 'green', problem: 'red', skipped: 'gray' } as const;

/** The service half: reachable, the token accepted, the clocks agreeing. Skipped when no service is set up. */
async function diagnoseService(session: Session): Promise<Diagnosis[]> {
  const { baseUrl, baseUrlSource, token } = session.settings;
  if (baseUrlSource === 'default' && token === undefined) {
    const why = 'no service set up (no --base-url, MAILVERIFY_BASE_URL, config or token); verify --local needs none';
    return [
      { check: 'service', status: 'skipped', detail: why },
      { check: 'token', status: 'skipped', detail: 'no service set up' },
      { check: 'clock', status: 'skipped', detail: 'no service set up' },
    ];
  }
  const anonymous = session.client({});
  let offsetMs: number | null;
  try {
    offsetMs = await anonymous.clockOffset();
  } catch (error) {
    const detail = `${baseUrl} does not answer: ${(error as Error).message}`;
    return [
      { check: 'service', status: 'problem', detail },
      { check: 'token', status: 'skipped', detail: 'the service does not answer' },
      { check: 'clock', status: 'skipped', detail: 'the service does not answer' },
    ];
  }
  return [await serviceNetwork(anonymous, baseUrl), await diagnoseToken(session), clockDiagnosis(offsetMs)];
}

/**
 * The service answers; whether it can verify is its own network's business: its `/healthz` says
 * only whether it can (why not is for its operator: the node's log, metrics and doctor there).
 */
async function serviceNetwork(client: ReturnType<Session['client']>, baseUrl: string): Promise<Diagnosis> {
  const details = (await client.health().catch(() => undefined))?.details;
  if (details?.canVerify === false) {
    return {
      check: 'service',
      status: 'problem',
      detail: `${baseUrl} answers but cannot verify now (its outbound SMTP or its resolver fails); its operator must fix that (the node's log and \`mailverify doctor\` there say why)`,
    };
  }
  return { check: 'service', status: 'ok', detail: `${baseUrl} answers` };
}

async function diagnoseToken(session: Session): Promise<Diagnosis> {
  const { profile, token, tokenUnavailable } = session.settings;
  if (tokenUnavailable !== undefined)
    return { check: 'token', status: 'problem', detail: `the token of profile ${profile} is in the OS keyring, which does not answer: ${tokenUnavailable}` };
  if (token === undefined)
    return { check: 'token', status: 'skipped', detail: `not logged in (profile ${profile}; run \`mailverify login\` to use the service)` };
  try {
    const { email, balance } = await session.authenticatedClient().account();
    return {
      check: 'token',
      status: 'ok',
      detail: `signed in as ${email}, balance ${balance} (profile ${profile}, token from ${tokenOrigin(session.settings)})`,
    };
  } catch (error) {
    return { check: 'token', status: 'problem', detail: `the service refuses the token: ${(error as Error).message} (run \`mailverify login\`)` };
  }
}

function clockDiagnosis(offsetMs: number | null): Diagnosis {
  if (offsetMs === null) return { check: 'clock', status: 'skipped', detail: 'the service sends no Date header' };
  const seconds = Math.round(offsetMs / 1000);
  const detail = `the service's clock is ${Math.abs(seconds)} s ${seconds >= 0 ? 'ahead of' : 'behind'} ours`;
  if (Math.abs(offsetMs) > CLOCK_SKEW_LIMIT_MS)
    return { check: 'clock', status: 'problem', detail: `${detail}: logins expire early or late; set the clock right (NTP)` };
  return { check: 'clock', status: 'ok', detail };
}

function humanLines(diagnoses: readonly Diagnosis[], session: Session): string {
  const { color } = session.io;
  const width = Math.max(...diagnoses.map((diagnosis) => diagnosis.check.length)) + 2;
  const line = ({ check, status, detail }: Diagnosis) => `${color[STATUS_COLOR[status]](status.padEnd(8))} ${check.padEnd(width)}${terminalSafe(detail)}`;
  return diagnoses.map((diagnosis) => `${line(diagnosis)}\n`).join('');
}

/**
 * Run as a client: a service is set up and no engine flag or --mx-host asks about verifying here.
 * What matters then is the service (it verifies, not this host), and this host's HELO name or port 25
 * are no problem of the user's.
 */
function asClient({ engine, mxHosts }: DoctorOptions, session: Session): boolean {
  const { baseUrlSource, token } = session.settings;
  const serviceSetUp = baseUrlSource !== 'default' || token !== undefined;
  return serviceSetUp && engine.given.length === 0 && (mxHosts ?? []).length === 0;
}

const LOCAL_SKIPPED: Diagnosis = {
  check: 'local',
  status: 'skipped',
  detail: 'the service verifies, not this host; give an engine flag (e.g. --helo) to check verifying here with --local',
};

/**
 * `mailverify doctor`: can this host verify addresses, and reach the service? One line per check,
 * exit 1 when any finds a problem. The same engine options and environment as `verify --local`; as a
 * client of a service (asClient), the service alone.
 */
export async function run(doctor: DoctorOptions, io: Io): Promise<void> {
  const { program, engine, mxHosts } = doctor;
  const session = createSession(program, io);
  try {
    if (asClient(doctor, session)) return report([...(await diagnoseService(session)), LOCAL_SKIPPED], session);
    const { diagnoseNetwork } = await import('../../engine/diagnose.js');
    const options = await resolvedEngineOptions(engine, session.env);
    const { checkStanding } = await import('../../engine/standing.js');
    // Our own standing per egress (blocklists, reverse DNS, HELO), asked of the same mail hosts as port 25.
    const [network, standing, service] = await Promise.all([
      diagnoseNetwork(options, { mailHosts: mxHosts }),
      checkStanding(options, mxHosts),
      diagnoseService(session),
    ]);
    report([...network, ...standing.flatMap((egress) => egress.findings), ...service], session);
  } finally {
    await session.close();
  }
}

/** Prints the checks; exit 1 when any found a problem. */
function report(diagnoses: Diagnosis[], session: Session): void {
  const problems = diagnoses.filter((diagnosis) => diagnosis.status === 'problem');
  session.io.stdout.write(session.io.json ? `${toSafeJson({ ok: problems.length === 0, checks: diagnoses })}\n` : humanLines(diagnoses, session));
  if (problems.length > 0) {
    throw new CliError(
      `doctor found ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}: ${problems.map((each) => each.check).join(', ')}`,
      ExitCode.failure,
    );
  }
}
