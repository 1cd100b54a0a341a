import { preferredEncoding } from './accept-encoding';

describe('preferredEncoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['gzip, deflate, br', 'br'], // what a browser sends over HTTPS: br wins the tie
    ['gzip, deflate', 'gzip'], // what a browser sends over plain HTTP
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0.1', 'gzip'],
    ['gzip;q=0, deflate', undefined],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['*;q=0', undefined],
    ['gzip ; q=0.8 , br ; q=0.9', 'br'],
    ['gzip;q=abc', undefined], // a malformed q-value does not make a coding acceptable
  ])('%j -> %j', (header, expected) => {
    expect(preferredEncoding(header)).toBe(expected);
  });
});
