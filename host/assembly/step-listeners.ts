// Assembly step 1: the listeners, opened before anything else so every URL and port is known
// (the egress policy refuses the host's own ports). Opens sockets; never serves a request.

import type { HostOptions } from '../config/options.ts';
import type { HostMetrics } from '../metrics/metrics.ts';
import { loadConsoleAssets } from '../server/console/assets.ts';
import { openHttpListener } from './http-listener.ts';
import { openMetricsListener } from './metrics-listener.ts';
import type { OnFailure } from './step-types.ts';

export type Listeners = Awaited<ReturnType<typeof openListeners>>;

export async function openListeners(options: HostOptions, metrics: HostMetrics, onFailure: OnFailure) {
  const http = await openHttpListener(options.host, options.port);
  onFailure(() => http.close());
  // The console gets its own listener, so its origin never serves an integration's pages.
  const consoleHttp =
    options.consolePort === undefined
      ? undefined
      : await openHttpListener(options.host, options.consolePort, '--console-port');
  if (consoleHttp) onFailure(() => consoleHttp.close());
  // Opened before the sandbox starts, so the egress policy knows every port the host listens on.
  const metricsListener = options.metricsListen ? await openMetricsListener(options.metricsListen, metrics) : undefined;
  if (metricsListener) onFailure(() => metricsListener.close());
  /** Never an egress destination on a non-public address (see excludingHostPorts). */
  const hostPorts = [
    http.port,
    ...(consoleHttp ? [consoleHttp.port] : []),
    ...(metricsListener ? [metricsListener.port] : []),
  ];
  // Built while the integrations load; awaited when the console is attached.
  const consoleAssets = consoleHttp ? loadConsoleAssets() : undefined;
  consoleAssets?.catch(() => undefined);
  return { http, baseUrl: http.baseUrl, consoleHttp, metricsListener, hostPorts, consoleAssets };
}
