/**
 * What the engine has found out about the network it runs on, for those who watch it (the
 * service's /healthz and its log): whether SMTP connections get out, whether the resolver tells
 * the truth. Listeners hear of changes only, so a blocked port is logged once, not per address.
 */
/** `suspect`: customers' hosts timed out, not yet confirmed against hosts no customer picks (net/port25.ts). */
export type Port25State = 'unknown' | 'open' | 'suspect' | 'blocked';
export type ResolverState = 'unknown' | 'truthful' | 'untruthful';

export interface NetworkStatus {
  port25: { state: Port25State; reason?: string };
  resolver: { state: ResolverState; reason?: string };
}

export interface NetworkWatch {
  status(): NetworkStatus;
  /** Called on every change of state after this call; returns the function that stops the calls. */
  onChange(listener: (status: NetworkStatus) => void): () => void;
}

export class NetworkStatusBoard implements NetworkWatch {
  private current: NetworkStatus = { port25: { state: 'unknown' }, resolver: { state: 'unknown' } };
  private readonly listeners = new Set<(status: NetworkStatus) => void>();

  status(): NetworkStatus {
    return this.current;
  }

  onChange(listener: (status: NetworkStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listeners hear of a new state, or of the same state for a new reason (one egress of several blocked). */
  set<K extends keyof NetworkStatus>(key: K, value: NetworkStatus[K]): void {
    if (this.current[key].state === value.state && this.current[key].reason === value.reason) return;
    this.current = { ...this.current, [key]: value };
    for (const listener of this.listeners) listener(this.current);
  }
}
