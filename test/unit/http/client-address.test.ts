import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnv } from '@/lib/env';
import { proxyMatcher, resolveClientAddress } from '@/lib/http/client-address';

// The client's address: the socket's peer, and X-Forwarded-For only as far as
// the proxies it passed through are configured as trusted.

const none = proxyMatcher([]);

describe('resolveClientAddress', () => {
  test('without trusted proxies the socket decides, and X-Forwarded-For is ignored as the client’s own word', () => {
    assert.equal(resolveClientAddress({ peer: '127.0.0.1', forwardedFor: undefined, trusted: none }), '127.0.0.1');
    assert.equal(resolveClientAddress({ peer: '198.51.100.4', forwardedFor: '203.0.113.9', trusted: none }), '198.51.100.4');
    assert.equal(resolveClientAddress({ peer: undefined, forwardedFor: '203.0.113.9', trusted: none }), null);
  });

  test('IPv4 reached over an IPv6 socket is written as IPv4; IPv6 in lower case', () => {
    assert.equal(resolveClientAddress({ peer: '::ffff:127.0.0.1', forwardedFor: undefined, trusted: none }), '127.0.0.1');
    assert.equal(resolveClientAddress({ peer: '2001:DB8::1', forwardedFor: undefined, trusted: none }), '2001:db8::1');
  });

  test('a trusted proxy’s last entry is taken, walking left only through further trusted proxies', () => {
    const trusted = proxyMatcher(['10.0.0.0/8', '127.0.0.1']);
    assert.equal(resolveClientAddress({ peer: '127.0.0.1', forwardedFor: '203.0.113.9', trusted }), '203.0.113.9');
    // the client forged the leftmost entry; the proxy appended the real one
    assert.equal(resolveClientAddress({ peer: '127.0.0.1', forwardedFor: '1.2.3.4, 203.0.113.9', trusted }), '203.0.113.9');
    // two proxies: the inner one (10.0.0.2) is trusted too
    assert.equal(resolveClientAddress({ peer: '::ffff:127.0.0.1', forwardedFor: 'forged, 203.0.113.9, 10.0.0.2', trusted }), '203.0.113.9');
    // a peer that is not a trusted proxy is the client, whatever it sends
    assert.equal(resolveClientAddress({ peer: '198.51.100.4', forwardedFor: '10.0.0.2', trusted }), '198.51.100.4');
    // a trusted proxy with nothing to forward is itself the client
    assert.equal(resolveClientAddress({ peer: '127.0.0.1', forwardedFor: undefined, trusted }), '127.0.0.1');
  });

  test('entries with a port or brackets are read; anything that is no address stops the walk at the last address', () => {
    const trusted = proxyMatcher(['127.0.0.1']);
    assert.equal(resolveClientAddress({ peer: '127.0.0.1', forwardedFor: '203.0.113.9:51234', trusted }), '203.0.113.9');
    assert.equal(resolveClientAddress({ peer: '127.0.0.1', forwardedFor: '[2001:db8::7]:443', trusted }), '2001:db8::7');
    assert.equal(resolveClientAddress({ peer: '127.0.0.1', forwardedFor: 'unknown', trusted }), '127.0.0.1');
  });

  test('IPv6 ranges match', () => {
    const trusted = proxyMatcher(['fd00::/8', '::1']);
    assert.equal(resolveClientAddress({ peer: 'fd12::3', forwardedFor: '2001:db8::9', trusted }), '2001:db8::9');
    assert.equal(resolveClientAddress({ peer: '::1', forwardedFor: '192.0.2.1', trusted }), '192.0.2.1');
  });
});

describe('FLOWFIX_TRUSTED_PROXIES', () => {
  test('defaults to none', () => {
    assert.deepEqual(parseEnv({}).FLOWFIX_TRUSTED_PROXIES, []);
  });

  test('reads addresses and ranges, comma-separated', () => {
    assert.deepEqual(parseEnv({ FLOWFIX_TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8 ,::1,fd00::/8' }).FLOWFIX_TRUSTED_PROXIES, [
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
  });

  test('names a wrong entry', () => {
    assert.throws(() => parseEnv({ FLOWFIX_TRUSTED_PROXIES: '127.0.0.1,proxy.local' }), /FLOWFIX_TRUSTED_PROXIES: .*"proxy\.local"/);
    assert.throws(() => parseEnv({ FLOWFIX_TRUSTED_PROXIES: '10.0.0.0/33' }), /FLOWFIX_TRUSTED_PROXIES: .*"10\.0\.0\.0\/33"/);
  });

  test('the old hop count is refused with a pointer to its replacement, unless it says none', () => {
    assert.throws(() => parseEnv({ FLOWFIX_TRUSTED_PROXY_HOPS: '1' }), /FLOWFIX_TRUSTED_PROXY_HOPS: .*FLOWFIX_TRUSTED_PROXIES/);
    assert.deepEqual(parseEnv({ FLOWFIX_TRUSTED_PROXY_HOPS: '0' }).FLOWFIX_TRUSTED_PROXIES, []);
  });
});
