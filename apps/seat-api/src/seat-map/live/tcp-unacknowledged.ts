import { readFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The kernel's TCP tables of this process's network namespace: one line per socket. */
const TABLES = ['/proc/self/net/tcp', '/proc/self/net/tcp6'];

/**
 * How many bytes each socket's kernel holds that its peer has not acknowledged yet (Linux: the tx_queue
 * of /proc/self/net/tcp and tcp6), found by the sockets' addresses; undefined where it cannot be read
 * (another system, a closed socket).
 *
 * Why read it: a socket's 'drain' says only that the kernel took what the process wrote, and the kernel
 * takes more only once a third of its send buffer (up to megabytes) is free again, so a client reading a
 * few hundred KiB/s shows no progress there for seconds. Its acknowledgements move as it reads.
 */
export async function unacknowledgedBytes(sockets: Socket[]): Promise<Map<Socket, number>> {
  const wanted = new Map<string, Socket>();
  for (const socket of sockets) {
    const key = tableKey(socket);
    if (key !== undefined) {
      wanted.set(key, socket);
    }
  }
  const found = new Map<Socket, number>();
  if (wanted.size === 0) {
    return found;
  }
  for (const table of TABLES) {
    let text: string;
    try {
      text = await readFile(table, 'latin1');
    } catch {
      continue; // not Linux, or no IPv6
    }
    for (const line of text.split('\n')) {
      // sl local_address rem_address st tx_queue:rx_queue ...
      const fields = line.trim().split(/\s+/, 5);
      const socket = wanted.get(`${fields[1]} ${fields[2]}`);
      if (socket !== undefined && fields[4] !== undefined) {
        found.set(socket, parseInt(fields[4].slice(0, fields[4].indexOf(':')), 16));
      }
    }
  }
  return found;
}

/** The socket's `local remote` as the kernel's tables print them, e.g. `0100007F:0BB8 0100007F:D431`. */
export function tableKey(socket: Socket): string | undefined {
  const { localAddress, localPort, remoteAddress, remotePort } = socket;
  if (!localAddress || !localPort || !remoteAddress || !remotePort) {
    return undefined;
  }
  return `${tableAddress(localAddress, localPort)} ${tableAddress(remoteAddress, remotePort)}`;
}

/** An address as the tables print it: each 32-bit word of it in the machine's byte order, in hex. */
export function tableAddress(address: string, port: number, order = endianness()): string {
  const bytes = Buffer.from(ipaddr.parse(address).toByteArray());
  let hex = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const word = order === 'LE' ? bytes.readUInt32LE(i) : bytes.readUInt32BE(i);
    hex += word.toString(16).toUpperCase().padStart(8, '0');
  }
  return `${hex}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}
