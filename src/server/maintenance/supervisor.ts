import { PeriodicService, type MaintenanceService, type ServiceRunOptions } from './service.js';

export interface Maintenance {
  /** The services it runs, by name (for the log at start and for tests). */
  readonly names: readonly string[];
  /** Stops every service; resolves once none touches the store any more, so the store may be closed. */
  stop(): Promise<void>;
}

/**
 * Starts every maintenance service of a process, each on its own timer (service.ts), and stops
 * them together: `serve` and `worker` start one with the services their parts need
 * (docs/architecture.md "Maintenance"), as do local bulk runs.
 */
export function startMaintenance(services: readonly MaintenanceService[], options: ServiceRunOptions): Maintenance {
  const running = services.map((service) => new PeriodicService(service, options));
  for (const each of running) each.start();
  return {
    names: services.map((service) => service.name),
    async stop() {
      await Promise.all(running.map((each) => each.stop()));
    },
  };
}
