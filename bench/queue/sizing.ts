/**
 * What an on-sale of 1,000,000 people needs, worked out from the costs this run measured (bench:queue's
 * other parts): Redis memory and CPU on the one master that holds the event's queue (one slot), and seat
 * API CPU for the joins and the polls. The status is left to a CDN (public, max-age=2).
 */
import { table } from '../support/report';
import { SaleFigures } from './on-sale';
import { MemoryFigures, ThroughputFigures } from './queue-costs';

const PEOPLE = 1_000_000;
/** The longest refreshAfterSeconds the API gives a waiting client. */
const POLL_SECONDS = 20;
/** Everyone joins within this (a burst at the opening). */
const JOIN_WINDOW_SECONDS = 300;
/** A core's share a deployment plans to use (headroom for bursts, GC, the rest of the sale). */
const USABLE = 0.5;

export function sizingSection(memory: MemoryFigures, costs: ThroughputFigures, sale: SaleFigures): string {
  const fmt = (v: number, d = 0) =>
    v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const cpu = costs.serviceCpuUs;
  const joinUs = cpu['joins (a new user each)'];
  const readUs = cpu["entry reads (a waiting client's poll)"];
  const holdUs = cpu['holds, gate off (no queue)'];
  const memMb = (PEOPLE * memory.bytesPerEntry) / 2 ** 20;
  const joinsPerSecond = PEOPLE / JOIN_WINDOW_SECONDS;
  const pollsPerSecond = PEOPLE / POLL_SECONDS;
  const redisCores =
    (joinsPerSecond * memory.redisCpuUsPerJoin + pollsPerSecond * memory.redisCpuUsPerRead) / 1e6;
  const apiCores = (joinsPerSecond * joinUs + pollsPerSecond * readUs) / 1e6;
  const apiNodes = Math.ceil(apiCores / (2 * USABLE));
  const waitingPerMaster = (POLL_SECONDS * 1e6 * USABLE) / memory.redisCpuUsPerRead;
  return (
    `## Sizing: costs per shopper, and an on-sale of ${fmt(PEOPLE)} people (worked out from this run)\n\n` +
    table(
      ['per shopper', 'measured'],
      [
        ['Redis memory per joined entry', `${fmt(memory.bytesPerEntry)} B`],
        [
          'Redis memory per admitted shopper, besides the entry (the kept pass)',
          `${fmt(sale.passBytes)} B, while their turn lasts`,
        ],
        [
          'a join: commands Redis runs / round trips the service sends / Redis CPU',
          `${memory.commandsPerJoin.toFixed(1)} / ${costs.sentPerJoin.toFixed(2)} / ${memory.redisCpuUsPerJoin.toFixed(1)} µs`,
        ],
        ['a poll (entry read): Redis CPU', `${memory.redisCpuUsPerRead.toFixed(1)} µs`],
        [
          'the simulated on-sale: commands Redis ran per joined user / per admitted shopper (polls, steps, holds and their ends included)',
          `${(sale.redisCommands / Math.max(1, sale.joined)).toFixed(0)} / ${(sale.redisCommands / Math.max(1, sale.admitted)).toFixed(0)}`,
        ],
        [
          'seat API CPU per join / per poll / per hold (one instance, the throughput part)',
          `${fmt(joinUs)} / ${fmt(readUs)} / ${fmt(holdUs)} µs`,
        ],
      ],
    ) +
    `\n\nAn on-sale of ${fmt(PEOPLE)}: all join within ${JOIN_WINDOW_SECONDS / 60} minutes (${fmt(joinsPerSecond)} joins/s), then each ` +
    `polls their entry every ${POLL_SECONDS} s (${fmt(pollsPerSecond)} reads/s while they wait); the public status goes through a CDN ` +
    `(max-age=2: each edge asks once per 2 s). Planned at ${USABLE * 100} % of a core.\n\n` +
    table(
      ['need', 'from the measured costs'],
      [
        ['Redis memory for the queue', `${fmt(memMb)} MiB (one event: one slot, one master)`],
        [
          'Redis CPU on that master while everyone waits',
          `${redisCores.toFixed(2)} of a core (joins and polls)`,
        ],
        ['waiting clients one master serves at one poll per 20 s', fmt(waitingPerMaster)],
        ['seat API CPU', `${apiCores.toFixed(1)} cores: ${apiNodes} instances of 2 cores`],
      ],
    )
  );
}
