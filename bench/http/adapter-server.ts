/**
 * Why Fastify: the same minimal Nest app (one controller, ValidationPipe on a DTO, the hold Lua script
 * through ioredis; no auth, no lock) on either Nest HTTP adapter, so bench:http can put the two side by
 * side. ADAPTER=fastify|express, ADAPTER_PORT, REDIS_URL, REDIS_KEY_PREFIX.
 */
import 'reflect-metadata';
import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Module,
  Param,
  Post,
  ValidationPipe,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString } from 'class-validator';
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';

const config = loadConfig({ AUTH_JWT_SECRET: 'adapter-secret-0123456789', REDIS_URL: process.env.REDIS_URL });
const redis = new Redis(process.env.REDIS_URL!, {
  keyPrefix: process.env.REDIS_KEY_PREFIX,
  enableAutoPipelining: config.redis.autoPipelining,
});
const store = new HoldStore(redis, config, new DistributedLockService({ redis }));

class HoldBody {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @IsString({ each: true })
  seatIds!: string[];
}

@Controller('v1')
class HoldController {
  @Post('events/:eventId/holds')
  @HttpCode(201)
  async hold(@Param('eventId') eventId: string, @Body() body: HoldBody, @Headers('x-user') user: string) {
    const r = await store.createHold({
      eventId,
      holdId: HoldIds.generate(eventId),
      userId: user ?? 'anonymous',
      seatIds: body.seatIds,
      ttlMs: config.holds.defaultTtlSeconds * 1000,
      maxLifetimeMs: config.holds.maxLifetimeSeconds * 1000,
      maxSeatsPerUser: config.holds.maxSeatsPerUser,
      fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
    });
    return r.ok ? { holdId: r.hold.holdId, seatIds: r.hold.seatIds } : { error: r.error };
  }

  @Get('health/live')
  live() {
    return {};
  }
}

@Module({ controllers: [HoldController] })
class AdapterBenchModule {}

async function main(): Promise<void> {
  const adapter = process.env.ADAPTER === 'express' ? new ExpressAdapter() : new FastifyAdapter();
  const app = await NestFactory.create(AdapterBenchModule, adapter, { logger: ['error'] });
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }));
  await app.listen(Number(process.env.ADAPTER_PORT), '127.0.0.1');
}

void main();
