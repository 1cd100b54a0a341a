import { keySlot, SLOTS } from './key-slot';
import { slotTag } from './slot-tag';

describe('slotTag', () => {
  it.each([0, 1, 5461, 10922, 12182, SLOTS - 1])('gives a tag whose keys hash to slot %i', (slot) => {
    const tag = slotTag(slot);
    expect(keySlot(`{${tag}}`)).toBe(slot);
    expect(keySlot(`prefix:replica-ack:{${tag}}`)).toBe(slot);
    expect(slotTag(slot)).toBe(tag);
  });

  it('refuses what is not a hash slot', () => {
    expect(() => slotTag(SLOTS)).toThrow('not a hash slot');
    expect(() => slotTag(-1)).toThrow('not a hash slot');
    expect(() => slotTag(1.5)).toThrow('not a hash slot');
  });
});
