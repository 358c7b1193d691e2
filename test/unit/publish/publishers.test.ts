// Publisher tokens: issued once in the `ihp_<id>_<secret>` shape with only their sha256 stored,
// accepted only whole and unrevoked (a guessed id and a wrong secret get the same answer), and the
// rule of who may act on which organization's integrations.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PublisherRecord, PublisherStore } from '../../../host/publish/model.ts';
import {
  authenticatePublisher,
  authorize,
  checkIssueInput,
  issuePublisher,
  looksLikePublisherToken,
} from '../../../host/publish/publishers.ts';

function memoryStore(): PublisherStore & { rows: Map<string, PublisherRecord> } {
  const rows = new Map<string, PublisherRecord>();
  return {
    rows,
    add: async (record) => void rows.set(record.id, record),
    find: async (id) => rows.get(id),
    list: async () => [...rows.values()],
    async revoke(id, at) {
      const row = rows.get(id);
      if (row === undefined || row.revokedAt !== null) return false;
      rows.set(id, { ...row, revokedAt: at });
      return true;
    },
  };
}

const NOW = new Date('2026-12-01T10:00:00.000Z');

describe('publisher tokens', () => {
  it('are shown once and stored only as their hash', async () => {
    const store = memoryStore();
    const { publisher, token } = await issuePublisher(store, { organization: 'acme', label: 'ci' }, NOW);
    expect(token).toMatch(/^ihp_pub_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(looksLikePublisherToken(token)).toBe(true);
    expect(publisher).toEqual({
      id: publisher.id,
      organization: 'acme',
      label: 'ci',
      createdAt: NOW.toISOString(),
      revokedAt: null,
    });
    const stored = store.rows.get(publisher.id)!;
    expect(stored.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(token.slice(-43));
  });

  it('authenticate whole and unrevoked, and say nothing about which part of a bad one was wrong', async () => {
    const store = memoryStore();
    const { publisher, token } = await issuePublisher(store, { organization: 'acme', label: '' }, NOW);
    expect(await authenticatePublisher(store, token)).toEqual({
      kind: 'publisher',
      id: publisher.id,
      organization: 'acme',
    });
    const wrongSecret = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const unknownId = token.replace(publisher.id, 'pub_0000000000000000');
    for (const bad of [wrongSecret, unknownId, 'ihp_garbage', `${token}x`]) {
      await expect(authenticatePublisher(store, bad)).rejects.toMatchObject({
        code: 'ERR_FORBIDDEN',
        message: 'publisher token is not valid',
      });
    }
    await store.revoke(publisher.id, '2026-12-02T00:00:00.000Z');
    await expect(authenticatePublisher(store, token)).rejects.toMatchObject({
      code: 'ERR_FORBIDDEN',
      message: expect.stringContaining(`publisher token ${publisher.id} was revoked at 2026-12-02T00:00:00.000Z`),
    });
  });

  it('check what an operator asks to issue', () => {
    expect(checkIssueInput({ organization: 'acme' })).toEqual({ organization: 'acme', label: '' });
    expect(() => checkIssueInput({ organization: 'a b' })).toThrow('/organization');
    expect(() => checkIssueInput({})).toThrow('/organization');
    expect(() => checkIssueInput({ organization: 'acme', label: 7 })).toThrow('/label');
    expect(() => checkIssueInput({ organization: 'acme', token: 'mine' })).toThrow('/token: unknown field');
  });
});

describe('who may act on an integration', () => {
  it('is the operator for every organization, a publisher only for its own', () => {
    expect(() => authorize({ kind: 'admin' }, 'globex', 'x')).not.toThrow();
    expect(() => authorize({ kind: 'publisher', id: 'pub_1', organization: 'acme' }, 'acme', 'x')).not.toThrow();
    expect(() => authorize({ kind: 'publisher', id: 'pub_1', organization: 'acme' }, 'globex', 'x')).toThrow(
      'publisher token pub_1 is for organization "acme", but "x" belongs to organization "globex"',
    );
    // Organizations are compared exactly: no case folding, no prefix.
    expect(() => authorize({ kind: 'publisher', id: 'pub_1', organization: 'acme' }, 'ACME', 'x')).toThrow();
    expect(() => authorize({ kind: 'publisher', id: 'pub_1', organization: 'acme' }, 'acme-corp', 'x')).toThrow();
  });
});
