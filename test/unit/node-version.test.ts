import { describe, it, expect } from 'vitest';

describe('test runtime', () => {
  it('runs on the pinned Node 24', () => {
    expect(process.version).toMatch(/^v24\./);
  });
});
