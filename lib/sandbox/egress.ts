import 'server-only';
import { lookup } from 'node:dns/promises';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { isIP, createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EGRESS_RELAY, EGRESS_SOCKET } from './argv';

// Network for a sandboxed command without sharing the server's network
// namespace (sharing it would hand the command the server's loopback: its
// HTTP port, PostgreSQL, the model proxy). The command keeps an empty network
// namespace; the one way out is a unix socket bound into the sandbox, served
// here by an HTTPS (CONNECT) proxy that
//   - connects only to the allowed hosts when a list is given (installs: the
//     configured registries), else to any host;
//   - never connects to a loopback, private, link-local or unspecified
//     address, whatever name resolved to it, unless the list names that
//     address and port literally (a registry mirror on this machine);
// Inside, relay.cjs listens on 127.0.0.1:RELAY_PORT of the sandbox's own
// loopback and forwards to the socket; HTTPS_PROXY and npm's proxy settings
// point there. Programs that ignore proxy settings get no network at all.

export const RELAY_PORT = 3128;

/** Runs the command under the relay (it becomes the command's parent and exits with its status). */
export const EGRESS_PRELUDE = `exec ${JSON.stringify(process.execPath)} ${EGRESS_RELAY} ${EGRESS_SOCKET} ${RELAY_PORT} `;

export function egressEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${RELAY_PORT}`;
  return {
    HTTPS_PROXY: url,
    https_proxy: url,
    HTTP_PROXY: url,
    http_proxy: url,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
  };
}

export interface EgressProxy {
  socketPath: string;
  close(): Promise<void>;
}

/** True for addresses a sandboxed command must never reach through the proxy. */
export function isInternalAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  const v6 = address.toLowerCase();
  return v6 === '::' || v6 === '::1' || v6.startsWith('fe80:') || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('ff');
}

function parseTarget(target: string): { host: string; port: number } | null {
  const m = /^\[?([^\]\s]+?)\]?:(\d{1,5})$/.exec(target);
  if (!m) return null;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1].toLowerCase(), port } : null;
}

async function decide(allowHosts: string[] | undefined, host: string, port: number): Promise<{ address: string } | { refused: string }> {
  const literal = allowHosts?.some((h) => h.toLowerCase() === `${host}:${port}`) ?? false;
  if (allowHosts && !literal && !allowHosts.some((h) => h.toLowerCase() === host)) return { refused: `${host} is not an allowed registry` };
  let address = host;
  if (!isIP(host)) {
    try {
      address = (await lookup(host)).address;
    } catch (err) {
      return { refused: `${host} does not resolve: ${(err as Error).message}` };
    }
  }
  if (isInternalAddress(address) && !literal) return { refused: `${host} (${address}) is an internal address` };
  return { address };
}

function refuse(socket: Socket, status: string, why: string): void {
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nflowfix egress proxy: ${why}\n`);
}

export async function startEgressProxy(input: { allowHosts?: string[] | undefined }): Promise<EgressProxy> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flowfix-egress-'));
  const socketPath = path.join(dir, 'egress.sock');
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > 16 * 1024) refuse(client, '431 Request Header Fields Too Large', 'request too large');
        return;
      }
      client.off('data', onData);
      client.pause();
      const rest = head.subarray(end + 4);
      const [method, target] = head.subarray(0, end).toString('latin1').split('\r\n')[0].split(' ');
      if (method !== 'CONNECT') return refuse(client, '405 Method Not Allowed', 'only HTTPS (CONNECT) goes through this proxy');
      const parsed = parseTarget(target ?? '');
      if (!parsed) return refuse(client, '400 Bad Request', `bad target ${target}`);
      void decide(input.allowHosts, parsed.host, parsed.port).then((verdict) => {
        if ('refused' in verdict) return refuse(client, '403 Forbidden', verdict.refused);
        const upstream = connect(parsed.port, verdict.address);
        open.add(upstream);
        upstream.on('close', () => open.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        upstream.on('connect', () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (rest.length) upstream.write(rest);
          client.pipe(upstream).pipe(client);
          client.resume();
        });
      });
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  // the sandbox user (another uid) connects to it
  await chmod(socketPath, 0o666);
  return {
    socketPath,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
