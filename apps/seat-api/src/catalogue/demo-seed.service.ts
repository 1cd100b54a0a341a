import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SignJWT } from 'jose';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { EventAreaEntity, EventEntity, PriceListEntity, SeatEntity } from '@app/database';
import { HoldStore } from '../hold-store';

/** Fixed id, so seeding is idempotent across restarts and instances. */
export const DEMO_EVENT_ID = '00000000-0000-4000-8000-00000000d3e0';

/** The demo hall's standing area in front of the stage: places sold by quantity, not by name. */
const DEMO_AREA = { eventId: DEMO_EVENT_ID, name: 'FLOOR', category: 'standing', capacity: 300, position: 0 };

/** The demo hall's prices (version 1, in euro cents): its seats and places are priced on the seat picker. */
const DEMO_PRICES = {
  eventId: DEMO_EVENT_ID,
  version: 1,
  currency: 'EUR',
  createdBy: 'demo-seed',
  categories: [
    {
      key: 'premium',
      ticketTypes: [
        { key: 'adult', label: 'Adult', price: 6500 },
        { key: 'child', label: 'Child', price: 3500 },
      ],
    },
    {
      key: 'standard',
      ticketTypes: [
        { key: 'adult', label: 'Adult', price: 4000 },
        { key: 'child', label: 'Child', price: 2000 },
      ],
    },
    {
      key: 'standing',
      ticketTypes: [{ key: 'adult', label: 'Adult', price: 3000 }],
    },
  ],
};

/**
 * With SEED_DEMO_EVENT=true: a 10 × 20 demo hall with a standing area FLOOR of 300 places in front of it,
 * its price list, and a ready-made token printed for trying the API. Each row is inserted only if it is not
 * there: a database seeded before keeps what it has.
 * With it off (the default) nothing is seeded and nothing is printed.
 *
 * The printed token is a plain user's (no roles): a log line is read by whoever reads logs, so it must
 * never carry a credential that can create events or read every user's expirations. It is signed with
 * the real secret (it has to work) and names the configured issuer, if any.
 */
@Injectable()
export class DemoSeedService implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoSeed');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly holds: HoldStore,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.seedDemoEvent) {
      return;
    }
    const rows = 'ABCDEFGHIJ'.split('');
    const seats = rows.flatMap((row, r) =>
      Array.from({ length: 20 }, (_, i) =>
        Object.assign(new SeatEntity(), {
          eventId: DEMO_EVENT_ID,
          seatId: `HALL-${row}-${i + 1}`,
          section: 'HALL',
          row,
          number: i + 1,
          category: row < 'D' ? 'premium' : 'standard',
          position: r * 20 + i,
        }),
      ),
    );
    await this.db.transaction(async (tx) => {
      await tx
        .createQueryBuilder()
        .insert()
        .into(EventEntity)
        .values({
          id: DEMO_EVENT_ID,
          name: 'Demo concert',
          startsAt: DEMO_STARTS_AT,
          seatCount: seats.length,
          priceListVersion: DEMO_PRICES.version,
        })
        .orIgnore()
        .execute();
      await tx.createQueryBuilder().insert().into(SeatEntity).values(seats).orIgnore().execute();
      await tx.createQueryBuilder().insert().into(EventAreaEntity).values(DEMO_AREA).orIgnore().execute();
      await tx.createQueryBuilder().insert().into(PriceListEntity).values(DEMO_PRICES).orIgnore().execute();
    });
    await this.holds.registerEvent(DEMO_EVENT_ID, DEMO_STARTS_AT);
    const secret = new TextEncoder().encode(this.config.auth.jwtSecret);
    const jwt = new SignJWT({ roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('demo-user')
      .setExpirationTime('12h');
    const issuer = this.config.auth.issuer;
    const token = await (issuer ? jwt.setIssuer(issuer) : jwt).sign(secret);
    const base = `http://${browsableHost(this.config.http.host)}:${this.config.http.port}`;
    this.logger.log(
      [
        `demo event ${DEMO_EVENT_ID} (200 seats, HALL-A-1 .. HALL-J-20, and 300 standing places in FLOOR). Open the seat picker, as user demo-user (no admin role):`,
        `  ${base}/#token=${token}&event=${DEMO_EVENT_ID}`,
        `or try the API with the same token:`,
        `  export TOKEN=${token}`,
        `  curl -s -H "Authorization: Bearer $TOKEN" ${base}/v1/events/${DEMO_EVENT_ID}/seats | head -c 400`,
        `  curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"seatIds":["HALL-A-1","HALL-A-2"]}' ${base}/v1/events/${DEMO_EVENT_ID}/holds`,
      ].join('\n'),
    );
  }
}

const DEMO_STARTS_AT = new Date('2030-01-01T20:00:00Z');

/** A listen address as a browser can open it: a wildcard address means this machine; IPv6 takes brackets. */
function browsableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') {
    return '127.0.0.1';
  }
  return host.includes(':') ? `[${host}]` : host;
}
