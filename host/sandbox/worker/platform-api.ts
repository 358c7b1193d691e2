// Forwards a guest's platform API calls (same origin as environment.apiEndpoint) to the supervisor
// over IPC and hands back its answers. It never answers a call itself nor sees a token's owner:
// the supervisor checks that the token belongs to the calling integration.

import type { BridgeRequest, BridgeResponse, BridgeResult } from '../../../sandbox-api/runtime/contract.ts';
import type { SendToSupervisor } from './send.ts';

export class PlatformApiForwarder {
  private apiOrigin: string | null = null;
  private nextApiCall = 1;
  private readonly apiCalls = new Map<number, (result: BridgeResult<BridgeResponse>) => void>();
  private readonly send: SendToSupervisor;

  constructor(send: SendToSupervisor) {
    this.send = send;
  }

  /** Where the platform API lives (the supervisor's 'configure'). */
  configure(apiEndpoint: string): void {
    this.apiOrigin = new URL(apiEndpoint).origin;
  }

  /** Whether a guest URL targets the platform API (same origin as environment.apiEndpoint). */
  isPlatformApi(url: string): boolean {
    if (this.apiOrigin === null) return false;
    try {
      return new URL(url).origin === this.apiOrigin;
    } catch {
      return false;
    }
  }

  call(integration: string, request: BridgeRequest): Promise<BridgeResult<BridgeResponse>> {
    const id = this.nextApiCall++;
    return new Promise((resolve) => {
      this.apiCalls.set(id, resolve);
      this.send({ type: 'api-request', id, integration, request });
    });
  }

  /** The supervisor's answer to call `id`. */
  answered(id: number, result: BridgeResult<BridgeResponse>): void {
    this.apiCalls.get(id)?.(result);
    this.apiCalls.delete(id);
  }
}
