import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import pluginMetadata from '../../metadata';

/**
 * The OpenAPI document at /docs (page) and /docs-json. Request and response schemas come from the
 * @nestjs/swagger CLI plugin (nest-cli.json: class-validator bounds and formats, doc comments as
 * descriptions). The plugin transforms code only when `nest build` compiles with tsc; tests, benches
 * and `@swc-node/register` compile with SWC, which runs no plugin. So its output is also generated into
 * src/metadata.ts (`generate-metadata.ts`, checked fresh by its spec) and loaded here: the same document
 * whichever compiler built the app.
 */
export async function setUpOpenApi(app: INestApplication): Promise<void> {
  await SwaggerModule.loadPluginMetadata(pluginMetadata);
  const config = new DocumentBuilder()
    .setTitle('Seat-hold reservation service')
    .setDescription('Hold seats for a few minutes while people pay; confirm, extend, release; seat map.')
    .setVersion('1')
    .addBearerAuth()
    // relative: the API is at the root of whichever host serves this document
    .addServer('/', 'the host serving this document')
    // every tag a controller uses (@ApiTags), declared once with what it groups
    .addTag('events', 'Events: create, list, read, settings, sales, cancel; the seat map and its live stream')
    .addTag('holds', "A customer's holds: hold seats, read, extend, release, confirm")
    .addTag('pricing', "A show's versioned price list and its promo codes (admin; staff read)")
    .addTag('waitlist', "A show's waiting list: join, read your entry, leave")
    .addTag(
      'queue',
      "An event's on-sale queue: set up and steered by admins; joined by shoppers, whose turn brings an admission pass; its public status; the pass keys",
    )
    .addTag(
      'staff',
      'Box-office staff (agent, admin): holds and bookings of an event, seat blocks, the audit',
    )
    .addTag('health', 'Readiness and liveness probes (no token)')
    .build();
  SwaggerModule.setup('docs', app, () =>
    SwaggerModule.createDocument(app, config, {
      // the controller method's name (createHold, getSeatMap): unique across controllers, and what a
      // generated client calls
      operationIdFactory: (_controller: string, method: string) => method,
    }),
  );
}
