import { Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';

/**
 * The page's files: index.html, seat-picker.css, and ES modules (seat-picker.js, which imports the
 * others: see its header). Served from here in tests and from dist/ in production: `nest build` copies them
 * beside the compiled module (assets in nest-cli.json).
 */
export const SEAT_PICKER_DIR = join(__dirname, 'public');

/**
 * The page may load only its own files and call only this origin: nothing is fetched from elsewhere at
 * run time, and an injected script could not send the token in the fragment anywhere else.
 */
const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Serves the seat picker at `/` with @fastify/static: one route per file found at boot (`wildcard: false`),
 * so an unknown path still reaches Nest and gets the usual 404 envelope. These routes sit outside Nest's
 * guards on purpose: the page is public; what it does with the API is checked there, per call.
 */
@Module({})
export class SeatPickerModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Not awaited, on purpose (as Nest's own useStaticAssets): awaiting a register loads Fastify's plugin
    // queue now, which seals the routes Nest already added before Nest sets its error handler and
    // content-type parsing, so bad bodies would get Fastify's own error instead of our envelope. The
    // plugin loads with the rest at listen(), and a failure there still stops the boot.
    void fastify.register(fastifyStatic, {
      root: SEAT_PICKER_DIR,
      prefix: '/',
      wildcard: false,
      index: 'index.html',
      setHeaders: (reply) => {
        for (const [name, value] of Object.entries(PAGE_HEADERS)) {
          void reply.header(name, value);
        }
      },
    });
  }
}
