/** Boots the real seat API (createSeatApi, as production builds it) on a random port and talks HTTP to it. */
import 'reflect-metadata';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { SignJWT } from 'jose';
import { AppConfig, loadConfig, SeatApiEnvironment } from '@app/config';
import { AppModule } from '../../apps/seat-api/src/app.module';
import { createSeatApi } from '../../apps/seat-api/src/bootstrap/create-app';

export interface Api {
  app: NestFastifyApplication;
  base: string;
  token(sub: string, roles?: string[]): Promise<string>;
  call(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    body: any;
    headers: Headers;
  }>;
  close(): Promise<void>;
}

/**
 * Starts the API with `env` added to process.env. `configure` builds the app from a TestingModule instead,
 * for overrideProvider: `startApi({}, (m) => m.overrideProvider(AppConfig).useValue(configWith({...})))`.
 */
export async function startApi(
  env: Record<string, string> = {},
  configure?: (module: TestingModuleBuilder) => TestingModuleBuilder,
): Promise<Api> {
  Object.assign(process.env, { SWEEPER_ENABLED: 'false', ...env });
  const moduleRef = configure
    ? await configure(Test.createTestingModule({ imports: [AppModule] })).compile()
    : undefined;
  const app = await createSeatApi(moduleRef);
  try {
    await app.listen(0, '127.0.0.1');
  } catch (e) {
    await app.close().catch(() => undefined); // never leave a half-started app running
    throw e;
  }
  const base = await app.getUrl();
  const secret = new TextEncoder().encode(process.env.AUTH_JWT_SECRET);
  return {
    app,
    base,
    token: (sub, roles = []) => {
      const jwt = new SignJWT({ roles })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setExpirationTime('1h');
      // a deployment that names an issuer refuses tokens without it
      const issuer = process.env.AUTH_JWT_ISSUER;
      return (issuer ? jwt.setIssuer(issuer) : jwt).sign(secret);
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.token) {
        headers.authorization = `Bearer ${opts.token}`;
      }
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
      }
      if (body !== undefined && !headers['content-type']) {
        headers['content-type'] = 'application/json';
      }
      const res = await fetch(`${base}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    close: () => app.close(),
  };
}

/** The test file's AppConfig (its environment, sweeper off) with typed values replaced: for overrideProvider(AppConfig). */
export function configWith(overrides: Partial<SeatApiEnvironment>): AppConfig {
  const config = loadConfig({ ...process.env, SWEEPER_ENABLED: 'false' });
  Object.assign(config.env, overrides);
  return config;
}

/** Creates an event with `rows` rows of `perRow` seats in section S: seat ids `S-<row>-<n>`, rows A, B, C... */
export async function createEvent(api: Api, rows = 2, perRow = 10): Promise<string> {
  const admin = await api.token('admin-1', ['admin']);
  const res = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Test show',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        {
          name: 'S',
          category: 'standard',
          rows: Array.from({ length: rows }, (_, i) => ({ row: String.fromCharCode(65 + i), seats: perRow })),
        },
      ],
    },
  });
  if (res.status !== 201) {
    throw new Error(`create event: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return (res.body as { eventId: string }).eventId;
}

/** Creates an event with seats S-A-1..4 in section S and a general-admission area FLOOR of `capacity` places. */
export async function createEventWithFloor(api: Api, capacity: number): Promise<string> {
  const res = await api.call('POST', '/v1/events', {
    token: await api.token('admin-1', ['admin']),
    body: {
      name: 'Gig',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4 }] },
        { name: 'FLOOR', category: 'standing', capacity },
      ],
    },
  });
  if (res.status !== 201) {
    throw new Error(`create event: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return (res.body as { eventId: string }).eventId;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
