// Sign-in and sign-out against the host's console session routes. The admin token is sent once,
// in the sign-in body, and never stored by the page: the session lives in an HttpOnly cookie the
// page cannot read, and the CSRF token only in memory.

import { ApiError, request, setCsrfToken } from './api/client.ts';
import type { SessionInfo } from './api/types.ts';

export async function resumeSession(): Promise<SessionInfo | null> {
  try {
    const session = await request<SessionInfo>('GET', '/console/session', { quiet401: true });
    setCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signIn(token: string): Promise<SessionInfo> {
  const session = await request<SessionInfo>('POST', '/console/session', { body: { token }, quiet401: true });
  setCsrfToken(session.csrfToken);
  return session;
}

export async function signOut(): Promise<void> {
  try {
    await request<void>('DELETE', '/console/session', { quiet401: true });
  } finally {
    setCsrfToken(null);
  }
}
