import { keySlot, SLOTS } from './key-slot';

const tags = new Map<number, string>();

/**
 * A short hash tag whose keys hash to `slot`: for a key that must live on the master of a given slot (a
 * marker written beside another key's slot, see wait-for-replicas.ts). Found by trying tags in order
 * (about SLOTS tries for a new slot, once per slot and process), then remembered.
 */
export function slotTag(slot: number): string {
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS) {
    throw new Error(`not a hash slot: ${slot}`);
  }
  let tag = tags.get(slot);
  for (let i = 0; tag === undefined; i++) {
    const candidate = i.toString(36);
    if (keySlot(`{${candidate}}`) === slot) {
      tag = candidate;
    }
  }
  tags.set(slot, tag);
  return tag;
}
