import { SettingError } from '@runledger/kernel';
import { addressKind, DestinationGuard, parseAllowedHosts, type Resolve } from './public-address';

/** A resolver with fixed answers: no DNS in unit tests. */
const dns = (answers: Record<string, string[]>): Resolve => async (host) => {
  const found = answers[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

describe('Security SSRF: addressKind tells public addresses from the ones behind the boundary', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'], ['::1', 'loopback'], ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['fc00::1', 'private'], ['fd12:3456::1', 'private'], ['fec0::1', 'private'],
    ['169.254.169.254', 'link-local'], ['169.254.0.1', 'link-local'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'], ['febf::1', 'link-local'],
    ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'], ['::', 'unspecified'],
    ['100.64.0.1', 'shared'], ['100.127.255.255', 'shared'],
    ['224.0.0.1', 'multicast'], ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'], ['240.0.0.1', 'reserved'], ['192.0.2.1', 'reserved'], ['198.18.0.1', 'reserved'], ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'], ['100::1', 'reserved'], ['::2', 'reserved'], ['::7f00:1', 'reserved'],
  ])('Security SSRF: %s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['[::ffff:169.254.169.254]', 'link-local'], ['::ffff:a00:1', 'private'],
    ['0:0:0:0:0:ffff:c0a8:101', 'private'], ['64:ff9b::7f00:1', 'loopback'], ['64:ff9b::10.0.0.1', 'private'], ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local'], ['::ffff:8.8.8.8', 'public'], ['64:ff9b::808:808', 'public'],
  ])('Security SSRF: an IPv6 address carrying an IPv4 one is judged by it: %s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '169.253.255.255', '2606:4700::1111', '2a00:1450:4001:80b::200e'])(
    'Security SSRF: %s is public', (address) => {
      expect(addressKind(address)).toBe('public');
    },
  );

  it('Security SSRF: names and malformed literals are not addresses', () => {
    expect(['example.org', 'localhost', '2130706433', '0x7f.1', '1.2.3', '::g', ''].map(addressKind)).toEqual(Array(7).fill(undefined));
  });
});

describe('Security SSRF: DestinationGuard refuses what is not a public http(s) destination', () => {
  const guard = new DestinationGuard([], dns({
    'example.org': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'rebind.test': ['93.184.215.14', '127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:10.0.0.1'],
    'empty.test': [],
  }));

  it.each([
    'http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://0x7f000001/', 'http://127.1/', 'http://017700000001/',
    'http://[::ffff:127.0.0.1]/', 'http://[::1]:4399/admin', 'http://0/', 'http://[::]/', 'http://169.254.169.254/latest/meta-data/',
    'http://localhost:4399/', 'http://LOCALHOST./', 'http://admin.localhost/', 'https://10.1.2.3/', 'http://100.64.1.1/', 'http://[fe80::1]/', 'http://[fd00::1]/',
  ])('Security SSRF: %s (a loopback, private or link-local address in any spelling) is refused', async (url) => {
    expect(await guard.refusal(url)).toMatch(/is (loopback|private|link-local|unspecified|shared)$/);
  });

  it('Security SSRF: a name is refused if any address it resolves to is not public (DNS answers with an internal address among public ones)', async () => {
    expect(await guard.refusal('http://rebind.test/')).toBe('rebind.test resolves to 127.0.0.1 (loopback)');
    expect(await guard.refusal('https://metadata.test/latest')).toBe('metadata.test resolves to 169.254.169.254 (link-local)');
    expect(await guard.refusal('http://mapped.test/')).toBe('mapped.test resolves to ::ffff:10.0.0.1 (private)');
  });

  it('Security SSRF: a name that does not resolve is refused (what cannot be checked is not reached)', async () => {
    expect(await guard.refusal('http://nowhere.test/')).toBe('nowhere.test does not resolve');
    expect(await guard.refusal('http://empty.test/')).toBe('empty.test does not resolve');
  });

  it.each(['file:///etc/passwd', 'data:text/html,<h1>x</h1>', 'chrome://settings', 'javascript:alert(1)', 'ftp://example.org/', 'view-source:http://example.org/', 'ws://example.org/', 'blob:https://example.org/0b5e', 'not a url'])(
    'Security SSRF: a navigation to %s is refused (scheme)', async (url) => {
      expect(await guard.refusal(url)).toMatch(/^(scheme .* is not allowed|not a URL)$/);
    },
  );

  it('Security SSRF: the address a name was checked at is the one connected to (a second DNS answer, DNS rebinding, is never asked)', async () => {
    expect(await guard.destination('example.org', '443')).toEqual({ connectTo: '93.184.215.14' });
    expect(await guard.destination('[2606:4700::1111]', '443')).toEqual({ connectTo: '2606:4700::1111' });
    expect(await guard.destination('rebind.test', '80')).toEqual({ refused: 'rebind.test resolves to 127.0.0.1 (loopback)' });
  });

  it('Security SSRF: a public name, a public address literal pass', async () => {
    expect(await guard.refusal('https://example.org/in/jane')).toBeUndefined();
    expect(await guard.refusal('http://93.184.215.14:8080/')).toBeUndefined();
    expect(await guard.refusal('http://[2606:4700::1111]/')).toBeUndefined();
  });

  it('Security SSRF: assertAllowed throws the tool error TOOL.DESTINATION_DENIED (not retryable), its reason kept for the logs', async () => {
    await expect(guard.assertAllowed('http://127.0.0.1:4399/admin')).rejects.toMatchObject({
      code: 'TOOL.DESTINATION_DENIED', retryable: false, message: 'destination refused: 127.0.0.1 is loopback',
    });
  });
});

describe('Security SSRF: RL_BROWSER_ALLOWED_HOSTS lets an operator open named internal hosts', () => {
  it('an entry is a host (any port) or host:port, matched as the URL writes the host; everything else stays refused', async () => {
    const allowed = parseAllowedHosts(' intranet.corp , 127.0.0.1:4399,[::1]:8080, 0x0A.1 ');
    expect(allowed).toEqual([{ host: 'intranet.corp' }, { host: '127.0.0.1', port: '4399' }, { host: '[::1]', port: '8080' }, { host: '10.0.0.1' }]);
    const guard = new DestinationGuard(allowed, dns({ 'intranet.corp': ['10.9.9.9'], 'other.corp': ['10.9.9.9'] }));
    for (const url of ['http://intranet.corp/', 'https://INTRANET.corp:8443/x', 'http://127.0.0.1:4399/admin', 'http://2130706433:4399/', 'http://[::1]:8080/', 'http://10.0.0.1/', 'http://10.1/']) {
      expect({ url, refusal: await guard.refusal(url) }).toEqual({ url, refusal: undefined });
    }
    expect(await guard.refusal('http://127.0.0.1:4400/')).toBe('127.0.0.1 is loopback');
    expect(await guard.refusal('http://[::1]/')).toBe('::1 is loopback');
    expect(await guard.refusal('http://other.corp/')).toBe('other.corp resolves to 10.9.9.9 (private)');
    expect(await guard.refusal('file://intranet.corp/etc/passwd')).toBe('scheme file: is not allowed');
  });

  it('the default (unset or empty) allows nothing; a malformed entry stops the gateway at start, naming the setting', () => {
    expect(parseAllowedHosts(undefined)).toEqual([]);
    expect(parseAllowedHosts('')).toEqual([]);
    for (const bad of ['http://x/', 'host/path', 'user@host', '::1', 'host:99999']) {
      expect(() => parseAllowedHosts(bad)).toThrow(SettingError);
    }
  });
});
