// What every assembly step shares: the resolved options, the logger, the metrics, the platform
// data, and how a step registers what to close if a later one fails. Types only.

import type { Logger } from '../common/logger.ts';
import type { HostOptions } from '../config/options.ts';
import type { HostMetrics } from '../metrics/metrics.ts';
import type { PlatformData } from '../platform-data/data.ts';

/** Registers what must be closed if a later step of startup fails (closed in reverse). */
export type OnFailure = (close: () => unknown) => void;

export interface AssemblyBase {
  options: HostOptions;
  log: Logger;
  metrics: HostMetrics;
  platform: PlatformData;
  onFailure: OnFailure;
}
