import { tableAddress } from './tcp-unacknowledged';

// /proc/net/tcp and tcp6 print each 32-bit word of an address as the machine stores it, in hex
describe('tableAddress', () => {
  it('writes an IPv4 address and port as /proc/net/tcp does on a little-endian machine', () => {
    expect(tableAddress('127.0.0.1', 3000, 'LE')).toBe('0100007F:0BB8');
    expect(tableAddress('10.1.2.3', 54321, 'LE')).toBe('0302010A:D431');
  });

  it('writes IPv6 addresses, IPv4-mapped ones included, as /proc/net/tcp6 does', () => {
    expect(tableAddress('::1', 80, 'LE')).toBe('00000000000000000000000001000000:0050');
    expect(tableAddress('::ffff:127.0.0.1', 443, 'LE')).toBe('0000000000000000FFFF00000100007F:01BB');
  });

  it('keeps the bytes in order on a big-endian machine', () => {
    expect(tableAddress('127.0.0.1', 3000, 'BE')).toBe('7F000001:0BB8');
  });
});
