import { describe, it, expect } from 'vitest';
import { Placement } from '../../../host/sandbox/placement.ts';

function placement(workers = 3, regular = 2) {
  let now = 0;
  const p = new Placement(workers, regular, () => now);
  return { p, advance: (ms: number) => (now += ms) };
}

describe('Placement', () => {
  it('keeps every integration where it is while no worker has had to evict', () => {
    const { p } = placement();
    for (const name of ['a', 'b', 'c', 'd']) p.started(0, name);
    expect(p.target(0, 'cold')).toBeUndefined();
  });

  it('starts a cold integration on a roomier worker once its own had to evict', () => {
    const { p } = placement();
    for (const name of ['a', 'b', 'c']) p.started(0, name);
    p.started(1, 'x');
    p.disposed(0, 'a', true);
    expect(p.liveCounts()).toEqual([2, 1, 0]);
    expect(p.target(0, 'cold')).toBe(1);
  });

  it('never moves an integration that is live where it is, nor one on the offenders worker', () => {
    const { p } = placement();
    for (const name of ['a', 'b', 'c']) p.started(0, name);
    p.disposed(0, 'z', true);
    expect(p.target(0, 'a')).toBeUndefined();
    p.disposed(2, 'q', true);
    expect(p.target(2, 'offender')).toBeUndefined();
  });

  it(
    'moves to a worker that is not full even if it holds more (smaller) isolates, and never to one that is full ' +
      'too',
    () => {
      const { p } = placement(4, 3);
      p.started(0, 'a');
      for (const name of ['x', 'y', 'z']) p.started(1, name);
      for (const name of ['u', 'v']) p.started(2, name);
      p.disposed(0, 'c', true);
      expect(p.target(0, 'cold')).toBe(2);
      p.disposed(2, 'v', true);
      expect(p.target(0, 'cold')).toBe(1);
      p.disposed(1, 'z', true);
      expect(p.target(0, 'cold')).toBeUndefined();
    },
  );

  it('forgets the pressure after a while, and a restarted worker starts empty', () => {
    const { p, advance } = placement();
    for (const name of ['a', 'b', 'c']) p.started(0, name);
    p.disposed(0, 'd', true);
    advance(31_000);
    expect(p.target(0, 'cold')).toBeUndefined();
    p.restarted(0);
    expect(p.liveCounts()).toEqual([0, 0, 0]);
  });

  it('counts a disposal that was not an eviction as no pressure', () => {
    const { p } = placement();
    for (const name of ['a', 'b', 'c']) p.started(0, name);
    p.disposed(0, 'a', false);
    expect(p.target(0, 'cold')).toBeUndefined();
  });
});
