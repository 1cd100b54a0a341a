import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SignJWT } from 'jose';
import { register } from 'prom-client';
import { loadConfig } from '@app/config';
import { JwtAuthGuard, VERIFIED_CACHE_MAX_BYTES } from './jwt-auth.guard';

const SECRET = 'a-secret-of-sufficient-length';

function contextFor(token: string): ExecutionContext {
  const req = { headers: { authorization: `Bearer ${token}` } };
  return {
    getType: () => 'http',
    getHandler: () => contextFor,
    getClass: () => JwtAuthGuard,
    switchToHttp: () => ({ getRequest: () => req }),
  } as unknown as ExecutionContext;
}

async function metric(name: string): Promise<number> {
  const m = await register.getSingleMetric(name)!.get();
  return m.values.find((v) => v.labels.cache === 'jwt_verified')?.value ?? 0;
}

it('keeps the verified tokens within VERIFIED_CACHE_MAX_BYTES, and shows them on /metrics', async () => {
  const guard = new JwtAuthGuard(
    new Reflector(),
    loadConfig({ AUTH_JWT_SECRET: SECRET, REDIS_URL: 'redis://127.0.0.1:6379' }),
  );
  const key = new TextEncoder().encode(SECRET);
  // large tokens (a claim of 12 KB) reach the byte budget in a few hundred tokens
  const pad = 'x'.repeat(12_000);
  for (let i = 0; i < 600; i++) {
    const token = await new SignJWT({ pad })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(`user-${i}`)
      .setExpirationTime('1h')
      .sign(key);
    await expect(guard.canActivate(contextFor(token))).resolves.toBe(true);
  }
  const entries = await metric('memory_cache_entries');
  expect(entries).toBeGreaterThan(100);
  expect(entries).toBeLessThan(600);
  expect(await metric('memory_cache_bytes')).toBeLessThanOrEqual(VERIFIED_CACHE_MAX_BYTES);
  expect(await metric('memory_cache_evictions_total')).toBe(600 - entries);
  guard.onModuleDestroy();
  expect(await metric('memory_cache_entries')).toBe(0);
  expect(await metric('memory_cache_bytes')).toBe(0);
});
