// Counts what a node:sqlite handle executes (a statement's run/get/all/iterate, and exec) into a
// TrafficCounter, by wrapping the handle's prepare and exec. Never changes what runs or its result.

import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { TrafficCounter } from '../traffic.ts';

const EXECUTING = new Set<PropertyKey>(['run', 'get', 'all', 'iterate']);

function counted(statement: StatementSync, traffic: TrafficCounter): StatementSync {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(statement, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let method = methods.get(key);
      if (method === undefined) {
        method = EXECUTING.has(key)
          ? (...args: unknown[]) => {
              traffic.roundTrips++;
              traffic.statements++;
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            }
          : (value as (...a: unknown[]) => unknown).bind(target);
        methods.set(key, method);
      }
      return method;
    },
  });
}

/** Makes `db` count every statement it runs from now on; returns the counter. */
export function countTraffic(db: DatabaseSync): TrafficCounter {
  const traffic = new TrafficCounter();
  const prepare = db.prepare.bind(db);
  const exec = db.exec.bind(db);
  db.prepare = ((sql: string) => counted(prepare(sql), traffic)) as DatabaseSync['prepare'];
  db.exec = (sql: string) => {
    traffic.roundTrips++;
    traffic.statements++;
    exec(sql);
  };
  return traffic;
}
