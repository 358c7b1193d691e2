// What a host asked of its database since the store opened: round trips (calls it waited on) and
// statements executed. Read by the metrics (at each scrape) and the bench; counts, never decides.

export interface StoreTraffic {
  /** PostgreSQL: each query sent and waited on (BEGIN and COMMIT included). SQLite: each statement run. */
  readonly roundTrips: number;
  readonly statements: number;
}

/** The running count one store keeps; `snapshot()` is what leaves it. */
export class TrafficCounter {
  roundTrips = 0;
  statements = 0;

  snapshot(): StoreTraffic {
    return { roundTrips: this.roundTrips, statements: this.statements };
  }
}
