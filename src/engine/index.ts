import { VerifierContext } from './bulk/context.js';
import { verifyAll } from './bulk/verify-all.js';
import { resolveEngineOptions } from './options.js';
import { Transcript } from './core/transcript.js';
import type { NetworkStatus, NetworkWatch } from './net/network-status.js';
import type { EngineHooks, EngineOptions, VerificationResult, Verifier, VerifyOptions } from './core/types.js';

export type {
  Checks,
  EngineHooks,
  EngineOptions,
  SharedHostSlots,
  SmtpObserver,
  SmtpStatus,
  Verdict,
  VerificationResult,
  Verifier,
  VerifyOptions,
} from './core/types.js';
export { NOTHING_CHECKED, VERDICTS } from './core/types.js';
export { DEFAULT_ENGINE_OPTIONS, resolveEngineOptions } from './options.js';
export { egressKey } from './net/egress-key.js';
export { egressPool, type Egress, type EgressSpec } from './net/egress-pool.js';
export type { NetworkStatus, NetworkWatch } from './net/network-status.js';
export { checkStanding, type EgressStanding, type StandingCheck } from './standing.js';
export { providerOfMxHost } from './lists/providers.js';

/** A verifier that says what it found out about its network, and can be asked to find out now (`serve`, `worker`). */
export type WatchedVerifier = Verifier & { network: NetworkWatch; checkNetwork(): Promise<NetworkStatus> };

/**
 * The verification engine. One verifier keeps its DNS answers, domain facts and catch-all
 * findings between calls, and its session limits apply to all its calls together.
 */
export function createVerifier(options: Partial<EngineOptions> = {}, hooks: EngineHooks = {}): WatchedVerifier {
  const context = new VerifierContext(resolveEngineOptions(options), hooks);
  return {
    network: context.network,
    checkNetwork: () => context.checkNetwork(),
    async verify(email: string, { priority = 'bulk', explain = false }: VerifyOptions = {}): Promise<VerificationResult> {
      // The bulk path with a list of one: the same machinery, the same verdicts.
      let only: VerificationResult | undefined;
      const transcript = explain ? new Transcript() : undefined;
      await verifyAll(
        context,
        [email],
        (result) => {
          only = result;
        },
        priority,
        {},
        transcript,
      );
      return transcript ? { ...only!, details: transcript.explanation() } : only!;
    },
    verifyMany: (emails, onResult, options = {}) => verifyAll(context, emails, onResult, 'bulk', options),
  };
}
