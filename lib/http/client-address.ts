import 'server-only';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { getEnv } from '../env';

// The client's address, for the sign-in limit and the audit log.
//
// A route handler sees only the request's headers, never its socket, and
// Next fills X-Forwarded-For with the socket's address only when the client
// sent none, so that header alone cannot tell a client's own claim from the
// truth. The server process therefore stamps every request as it arrives
// (installClientAddressStamp, from instrumentation.ts), while the socket is
// still at hand: the socket's address, followed left through X-Forwarded-For
// only while each hop is a configured trusted proxy (FLOWFIX_TRUSTED_PROXIES).
// The stamp carries a key known only to this process, so a client that sends
// the header itself, or a request that reached the handler without passing
// the stamp, has no address rather than a forged one.

const HEADER = 'x-flowfix-client-address';
const STATE = Symbol.for('flowfix.client-address-stamp');

type StampState = { key: string };
type GlobalWithStamp = typeof globalThis & { [STATE]?: StampState };

export type ProxyMatcher = (address: string) => boolean;

/** Matches addresses against trusted proxies: addresses or CIDR ranges, IPv4 or IPv6. */
export function proxyMatcher(entries: readonly string[]): ProxyMatcher {
  if (entries.length === 0) return () => false;
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const type = net.isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => list.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
}

/**
 * One address as written by a socket or a proxy, in one canonical spelling:
 * IPv4 reached over an IPv6 socket (::ffff:a.b.c.d) as IPv4, IPv6 in lower
 * case, a port or brackets dropped. Null for anything that is not an address.
 */
export function normalizeAddress(raw: string | undefined | null): string | null {
  if (!raw) return null;
  let value = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(value);
  if (v4WithPort) value = v4WithPort[1];
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(value);
  if (mapped) value = mapped[1];
  if (!net.isIP(value)) return null;
  return value.toLowerCase();
}

/**
 * The client's address: the socket's peer, or, while that peer is a trusted
 * proxy, the entry it appended to X-Forwarded-For (its right end), and so on
 * leftwards. Entries left of the first untrusted hop are the client's own
 * word and never read.
 */
export function resolveClientAddress({
  peer,
  forwardedFor,
  trusted,
}: {
  peer: string | undefined;
  forwardedFor: string | string[] | undefined;
  trusted: ProxyMatcher;
}): string | null {
  let address = normalizeAddress(peer);
  if (!address) return null;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  while (trusted(address) && hops.length > 0) {
    const next = normalizeAddress(hops.pop());
    // a trusted proxy wrote something that is no address ("unknown"): the proxy is as far as we know
    if (!next) break;
    address = next;
  }
  return address;
}

function stamp(req: http.IncomingMessage, state: StampState, trusted: ProxyMatcher): void {
  delete req.headers[HEADER];
  const address = resolveClientAddress({ peer: req.socket?.remoteAddress, forwardedFor: req.headers['x-forwarded-for'], trusted });
  if (address) req.headers[HEADER] = `${state.key} ${address}`;
}

/**
 * Stamps every HTTP request this process serves with its client address,
 * before any of Next's code (or a test's server) sees it. Idempotent.
 */
export function installClientAddressStamp(): void {
  const g = globalThis as GlobalWithStamp;
  if (g[STATE]) return;
  const state: StampState = { key: randomBytes(18).toString('base64url') };
  const trusted = proxyMatcher(getEnv().FLOWFIX_TRUSTED_PROXIES);
  // Next creates its server before the start-up hook runs, so the servers'
  // shared prototype is where every request can still be reached first
  for (const proto of [http.Server.prototype, https.Server.prototype] as Array<{ emit: (event: string | symbol, ...args: unknown[]) => boolean }>) {
    const emit = proto.emit;
    proto.emit = function (this: unknown, event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'request') stamp(args[0] as http.IncomingMessage, state, trusted);
      return emit.call(this, event, ...args);
    };
  }
  g[STATE] = state;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined;

/** The client's address this process stamped on the request, or null when it has none. */
export function clientAddress(headers: HeaderSource): string | null {
  const state = (globalThis as GlobalWithStamp)[STATE];
  if (!state || !headers) return null;
  const raw = headers instanceof Headers ? headers.get(HEADER) : headers[HEADER];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return null;
  const space = value.indexOf(' ');
  if (space < 0) return null;
  const key = Buffer.from(value.slice(0, space));
  const expected = Buffer.from(state.key);
  if (key.length !== expected.length || !timingSafeEqual(key, expected)) return null;
  return normalizeAddress(value.slice(space + 1));
}
