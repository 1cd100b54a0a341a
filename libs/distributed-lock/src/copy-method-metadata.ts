/**
 * Copies every reflect-metadata entry of the original method onto its wrapper, so decorators applied
 * before (below) @DistributedLock — @Interval, @Cron, @EventPattern, @ApiOperation — still see theirs.
 * Decorators applied after (above) write onto the wrapper directly.
 */
export function copyMethodMetadata(from: object, to: object): void {
  for (const key of Reflect.getMetadataKeys(from)) {
    Reflect.defineMetadata(key, Reflect.getMetadata(key, from), to);
  }
}
