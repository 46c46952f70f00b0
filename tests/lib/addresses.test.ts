import {
  addressRefusal,
  canonicalAddress,
  isAllowedHost,
  isPublicAddress,
  normalizeHost,
  parseAllowHosts,
} from '../../src/lib/addresses.js';

describe('addresses an outbound request must not reach', () => {
  test.each([
    // IPv4 in its other spellings: hex, octal, one to three parts, decimal.
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.255.255.254', '127.255.255.254 is a loopback address'],
    ['0x7f.1', '127.0.0.1 is a loopback address'],
    ['0x7f.0.0.1', '127.0.0.1 is a loopback address'],
    ['2130706433', '127.0.0.1 is a loopback address'],
    ['0177.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.1', '127.0.0.1 is a loopback address'],
    ['10.0.0.1', '10.0.0.1 is a private address'],
    ['012.0.0.1', '10.0.0.1 is a private address'],
    ['10.255.255.255', '10.255.255.255 is a private address'],
    ['172.16.0.1', '172.16.0.1 is a private address'],
    ['172.31.255.255', '172.31.255.255 is a private address'],
    ['192.168.1.1', '192.168.1.1 is a private address'],
    ['169.254.169.254', '169.254.169.254 is a link-local address'],
    ['169.254.0.1', '169.254.0.1 is a link-local address'],
    ['0.0.0.0', '0.0.0.0 is an unspecified address'],
    ['0', '0.0.0.0 is an unspecified address'],
    ['0.1.2.3', '0.1.2.3 is an unspecified address'],
    ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT address'],
    ['100.127.255.255', '100.127.255.255 is a carrier-grade NAT address'],
    ['224.0.0.1', '224.0.0.1 is a multicast address'],
    ['239.255.255.250', '239.255.255.250 is a multicast address'],
    ['255.255.255.255', '255.255.255.255 is the broadcast address'],
    ['240.0.0.1', '240.0.0.1 is a reserved address'],
    ['192.0.2.1', '192.0.2.1 is a reserved address'],
    ['198.51.100.7', '198.51.100.7 is a reserved address'],
    ['203.0.113.9', '203.0.113.9 is a reserved address'],
    ['198.18.0.1', '198.18.0.1 is a reserved address'],
    ['192.0.0.8', '192.0.0.8 is a reserved address'],
    // IPv6, and IPv4 inside IPv6.
    ['::1', '::1 is a loopback address'],
    ['0:0:0:0:0:0:0:1', '::1 is a loopback address'],
    ['[::1]', '::1 is a loopback address'],
    ['::', ':: is an unspecified address'],
    ['fe80::1', 'fe80::1 is a link-local address'],
    ['febf::1', 'febf::1 is a link-local address'],
    ['fe80::1%eth0', 'fe80::1%eth0 is a link-local address'],
    ['2606:4700::1%eth0', '2606:4700::1%eth0 is a link-local address'],
    ['fc00::1', 'fc00::1 is a unique-local address'],
    ['fd12:3456::1', 'fd12:3456::1 is a unique-local address'],
    ['fec0::1', 'fec0::1 is a site-local address'],
    ['ff02::1', 'ff02::1 is a multicast address'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1 is an IPv4-mapped address of 127.0.0.1'],
    ['::ffff:7f00:1', '::ffff:7f00:1 is an IPv4-mapped address of 127.0.0.1'],
    ['::FFFF:A9FE:A9FE', '::ffff:a9fe:a9fe is an IPv4-mapped address of 169.254.169.254'],
    ['0:0:0:0:0:ffff:10.0.0.1', '::ffff:a00:1 is an IPv4-mapped address of 10.0.0.1'],
    // A public address in a mapped form is refused too: only plain unicast passes.
    ['::ffff:8.8.8.8', '::ffff:808:808 is an IPv4-mapped address of 8.8.8.8'],
    ['::ffff:0:7f00:1', '::ffff:0:7f00:1 is an IPv4-translated address of 127.0.0.1'],
    ['64:ff9b::7f00:1', '64:ff9b::7f00:1 is a NAT64 address of 127.0.0.1'],
    ['64:ff9b::808:808', '64:ff9b::808:808 is a NAT64 address of 8.8.8.8'],
    ['2002:7f00:1::1', '2002:7f00:1::1 is a 6to4 address of 127.0.0.1'],
    ['2002:a00:1::', '2002:a00:1:: is a 6to4 address of 10.0.0.1'],
    ['::7f00:1', '::7f00:1 is an IPv4-compatible address of 127.0.0.1'],
    ['2001::1', '2001::1 is a Teredo address'],
    ['2001:db8::1', '2001:db8::1 is a reserved address'],
    ['100::1', '100::1 is a special-purpose address (discard)'],
    ['5f00::1', '5f00::1 is a special-purpose address (segmentRouting)'],
    ['4000::1', '4000::1 is a reserved address'],
    ['::2', '::2 is an IPv4-compatible address of 0.0.0.2'],
  ])('%s', (address, reason) => {
    expect(addressRefusal(address)).toBe(reason);
    expect(isPublicAddress(address)).toBe(false);
  });

  test('the deprecated ::a.b.c.d spelling is refused, whichever form ipaddr.js reads it as', () => {
    expect(addressRefusal('::127.0.0.1')).toMatch(
      /^::(ffff:)?7f00:1 is an IPv4-(mapped|compatible) address of 127\.0\.0\.1$/,
    );
  });

  test.each(['', 'localhost', 'example.com', '1e100', '::g', '1.2.3.4.5', '127.0.0.1:80', '256.0.0.1', '[::1'])(
    'not an address: %j',
    (text) => {
      expect(addressRefusal(text)).toMatch(/ is not an IP address$/);
      expect(isPublicAddress(text)).toBe(false);
    },
  );

  test('a refusal shows a hostile text escaped', () => {
    expect(addressRefusal('\u001b[2Jx')).toBe('\\x1b[2Jx is not an IP address');
  });
});

describe('public addresses', () => {
  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '11.0.0.1',
    '9.255.255.255',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.1',
    '192.167.255.255',
    '192.169.0.1',
    '169.253.255.255',
    '126.255.255.255',
    '128.0.0.1',
    '223.255.255.254',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001::200e',
    '[2606:4700::1]',
  ])('%s', (address) => {
    expect(addressRefusal(address)).toBeUndefined();
    expect(isPublicAddress(address)).toBe(true);
  });
});

test('canonical addresses', () => {
  expect(canonicalAddress('0x7f.1')).toBe('127.0.0.1');
  expect(canonicalAddress('[0:0::1]')).toBe('::1');
  expect(canonicalAddress('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
  expect(canonicalAddress('example.com')).toBeUndefined();
});

describe('the allow-list', () => {
  test('entries are trimmed, lower-cased, canonical and exact', () => {
    const allowed = parseAllowHosts(' Hooks.Example.COM , localhost,127.0.0.1,[::1], 0:0::2 ,,');
    expect([...allowed]).toEqual(['hooks.example.com', 'localhost', '127.0.0.1', '::1', '::2']);
  });

  test('an unset or empty setting allows nothing', () => {
    expect(parseAllowHosts(undefined).size).toBe(0);
    expect(parseAllowHosts(' , ').size).toBe(0);
    expect(isAllowedHost('localhost', parseAllowHosts(''))).toBe(false);
  });

  test.each([
    ['localhost', 'localhost', true],
    ['LOCALHOST', 'localhost', true],
    ['localhost.', 'localhost', true],
    ['hooks.example.com', 'HOOKS.example.com', true],
    ['127.0.0.1', '127.0.0.1', true],
    // A URL's host arrives with brackets, and WHATWG has already made other spellings canonical.
    ['[::1]', '::1', true],
    ['[0:0::1]', '::1', true],
    ['bücher.example', 'xn--bcher-kva.example', true],
    ['xn--bcher-kva.example', 'bücher.example', true],
    // Exact: no parent domains, no children, no neighbours.
    ['evil-localhost', 'localhost', false],
    ['localhost.evil.com', 'localhost', false],
    ['a.hooks.example.com', 'hooks.example.com', false],
    ['example.com', 'hooks.example.com', false],
    ['127.0.0.2', '127.0.0.1', false],
    ['::ffff:7f00:1', '127.0.0.1', false],
  ])('%s against [%s]: %s', (host, setting, allowed) => {
    expect(isAllowedHost(host, parseAllowHosts(setting))).toBe(allowed);
  });

  test.each([
    '*.example.com',
    'https://example.com',
    'example.com:8443',
    'exa mple.com',
    '0x7f.1',
    '2130706433',
    '-x.com',
  ])('a bad entry is refused: %j', (entry) => {
    expect(() => parseAllowHosts(`localhost,${entry}`)).toThrow(/is not a host name or IP address$/);
  });

  test('normalizeHost leaves a plain name alone', () => {
    expect(normalizeHost('hooks.example.com')).toBe('hooks.example.com');
  });
});
