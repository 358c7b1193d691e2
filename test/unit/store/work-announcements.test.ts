// Announcements of waiting work between two hosts' stores on one database: on PostgreSQL an outbox
// insert that announces its rows (and a task announcement) reaches the other host's listener with the
// receiver origins, never the announcing host's own; on SQLite, where one process has the store,
// there is nothing to announce to and an announcing insert is an ordinary one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkDetail, WorkQueue } from '../../../host/common/work-announcements.ts';
import type { HostStores } from '../../../host/store/types.ts';
import { waitFor } from '../../helpers/host.ts';
import { useBackends, type Database } from './backends.ts';

let database: Database;

const delivery = (url: string) => ({
  installationId: 'inst_1',
  eventId: 'evt_1',
  eventType: 'space_content_updated',
  url,
  body: '{"eventId":"evt_1"}',
});

function heardBy(stores: HostStores): { queue: WorkQueue; detail: WorkDetail }[] {
  const heard: { queue: WorkQueue; detail: WorkDetail }[] = [];
  for (const queue of ['webhooks', 'tasks', 'owed-events'] as const)
    stores.work?.onAnnounced(queue, (detail) => heard.push({ queue, detail }));
  return heard;
}

describe.each(useBackends())('work announcements on $name', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
  });
  afterEach(async () => {
    await database?.close();
  });

  it.runIf(backend.name === 'postgres')(
    "tells the other host of an insert's waiting deliveries, by origin, and not itself",
    async () => {
      const a = await database.open();
      const b = await database.open();
      const onA = heardBy(a);
      const onB = heardBy(b);
      const records = await a.outbox.enqueue(
        [delivery('https://one.example/hook'), delivery('https://one.example/other'), delivery('http://two.test:81/')],
        Date.now(),
        { announce: true },
      );
      expect(records).toHaveLength(3);
      await waitFor(() => onB.length > 0);
      expect(onB).toEqual([{ queue: 'webhooks', detail: ['https://one.example', 'http://two.test:81'] }]);
      // The rows are there by the time the announcement is heard: it was sent at their commit.
      expect((await b.outbox.depth()).pending).toBe(3);

      a.work!.announce('tasks');
      await waitFor(() => onB.length === 2);
      expect(onB[1]).toEqual({ queue: 'tasks', detail: undefined });
      expect(onA).toEqual([]);
    },
  );

  it.runIf(backend.name === 'postgres')('says nothing for an insert this host starts itself', async () => {
    const a = await database.open();
    const b = await database.open();
    const onB = heardBy(b);
    await a.outbox.enqueue([delivery('https://quiet.example/hook')], Date.now());
    a.work!.announce('owed-events');
    // Announcements of one host reach the other in the order they were sent: the owed events' one
    // arriving first shows that the insert before it announced nothing.
    await waitFor(() => onB.length > 0);
    expect(onB).toEqual([{ queue: 'owed-events', detail: undefined }]);
  });

  it.runIf(backend.name === 'sqlite')(
    'has no announcements, and writes an announcing insert as any other',
    async () => {
      const stores = await database.open();
      expect(stores.work).toBeUndefined();
      const [record] = await stores.outbox.enqueue([delivery('https://one.example/hook')], 1_000, { announce: true });
      expect(record).toMatchObject({ status: 'pending', nextAttemptAt: 1_000 });
      expect((await stores.outbox.depth()).pending).toBe(1);
    },
  );
});
