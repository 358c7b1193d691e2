import { describe, expect, it } from 'vitest';
import {
  HeldEnvironments,
  MAX_HELD_ENVIRONMENTS,
  environmentKey,
  isKeyOf,
} from '../../../host/sandbox/held-environments.ts';

describe('HeldEnvironments', () => {
  it('holds an environment only as the very object last recorded under its key', () => {
    const held = new HeldEnvironments();
    const first = {};
    const second = {};
    held.record(environmentKey('a', 'inst_1'), first);
    expect(held.holds(environmentKey('a', 'inst_1'), first)).toBe(true);
    expect(held.holds(environmentKey('a', 'inst_1'), second)).toBe(false);
    expect(held.holds(environmentKey('a', 'inst_2'), first)).toBe(false);
    held.record(environmentKey('a', 'inst_1'), second);
    expect(held.holds(environmentKey('a', 'inst_1'), first)).toBe(false);
  });

  it('is full only for a new key once the bound is reached', () => {
    const held = new HeldEnvironments();
    for (let index = 0; index < MAX_HELD_ENVIRONMENTS; index++) held.record(environmentKey('a', `inst_${index}`), {});
    expect(held.isFullFor(environmentKey('a', 'inst_0'))).toBe(false);
    expect(held.isFullFor(environmentKey('a', 'inst_new'))).toBe(true);
    held.clear();
    expect(held.size).toBe(0);
    expect(held.isFullFor(environmentKey('a', 'inst_new'))).toBe(false);
  });

  it('forgets one integration’s keys and no other’s, also when one name prefixes another', () => {
    const held = new HeldEnvironments();
    const environment = {};
    for (const key of [
      environmentKey('a', 'inst_1'),
      environmentKey('a', ''),
      environmentKey('ab', 'inst_1'),
      environmentKey('b', 'a'),
    ])
      held.record(key, environment);
    held.forgetIntegration('a');
    expect(held.holds(environmentKey('a', 'inst_1'), environment)).toBe(false);
    expect(held.holds(environmentKey('a', ''), environment)).toBe(false);
    expect(held.holds(environmentKey('ab', 'inst_1'), environment)).toBe(true);
    expect(held.holds(environmentKey('b', 'a'), environment)).toBe(true);
    expect(isKeyOf(environmentKey('ab', 'x'), 'a')).toBe(false);
  });
});
