// Converts between the sandbox bridge's fetch shapes and the platform API's request/response,
// so a guest's fetch to environment.apiEndpoint reaches the same handlers as HTTP. Pure.

import type { BridgeRequest, BridgeResponse } from '../../sandbox-api/runtime/contract.ts';
import type { ApiRequest, ApiResponse } from './types.ts';

export function bridgeToApiRequest(request: BridgeRequest): ApiRequest {
  const url = new URL(request.url);
  return { method: request.method, path: `${url.pathname}${url.search}`, headers: request.headers, body: request.body };
}

export function apiToBridgeResponse(response: ApiResponse, url: string): BridgeResponse {
  return {
    status: response.status,
    statusText: '',
    headers: response.headers,
    body: response.body,
    url,
    redirected: false,
  };
}
