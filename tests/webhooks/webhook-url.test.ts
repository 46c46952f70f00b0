import { parseAllowHosts } from '../../src/lib/addresses.js';
import { InvalidInput } from '../../src/services/errors.js';
import type { Resolver } from '../../src/webhooks/resolve-target.js';
import { validateWebhookUrl, WebhookUrlRefused, type WebhookUrlCode } from '../../src/webhooks/webhook-url.js';

/** A resolver answering `addresses` for every host, counting its calls. */
function resolver(...addresses: string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(
    async (host: string) => {
      calls.push(host);
      return addresses.map((address) => ({ address }));
    },
    { calls },
  );
}

const development = { production: false };

async function refusal(url: string, options: Parameters<typeof validateWebhookUrl>[1]): Promise<WebhookUrlRefused> {
  const err: unknown = await validateWebhookUrl(url, options).then(
    () => new Error(`${url} was accepted`),
    (e: unknown) => e,
  );
  if (!(err instanceof WebhookUrlRefused)) throw err;
  return err;
}

describe('the form of a URL', () => {
  test.each([
    ['http://hooks.example.com/roster', 'http://hooks.example.com/roster'],
    ['https://HOOKS.Example.com:443/a?b=1', 'https://hooks.example.com/a?b=1'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/'],
    ['  https://hooks.example.com/x  ', 'https://hooks.example.com/x'],
    ['https://bücher.example/hook', 'https://xn--bcher-kva.example/hook'],
  ])('%j is accepted as %j', async (url, normalized) => {
    await expect(validateWebhookUrl(url, development)).resolves.toBe(normalized);
  });

  test.each<[string, WebhookUrlCode, string]>([
    ['/hook', 'URL_INVALID', 'url is not an absolute URL'],
    ['hooks.example.com/hook', 'URL_INVALID', 'url is not an absolute URL'],
    ['https://exa mple.com/', 'URL_INVALID', 'url is not an absolute URL'],
    ['http://', 'URL_INVALID', 'url is not an absolute URL'],
    ['ftp://hooks.example.com/', 'URL_SCHEME', 'url must use http or https'],
    ['javascript:alert(1)', 'URL_SCHEME', 'url must use http or https'],
    ['file:///etc/passwd', 'URL_SCHEME', 'url must use http or https'],
    ['https://user:pass@hooks.example.com/', 'URL_CREDENTIALS', 'url must not carry a user name or password'],
    ['https://user@hooks.example.com/', 'URL_CREDENTIALS', 'url must not carry a user name or password'],
    ['https://:pass@hooks.example.com/', 'URL_CREDENTIALS', 'url must not carry a user name or password'],
    [`https://hooks.example.com/${'a'.repeat(2049 - 26)}`, 'URL_TOO_LONG', 'url is longer than 2048 characters'],
    [
      `https://hooks.example.com/${'é'.repeat(1000)}`,
      'URL_TOO_LONG',
      'url is longer than 2048 characters once normalized',
    ],
    ['https://hooks.example.com/a\nb', 'URL_CONTROL_CHARACTER', 'url contains the control character U+000A'],
    ['https://hooks.exa\tmple.com/', 'URL_CONTROL_CHARACTER', 'url contains the control character U+0009'],
    ['https://hooks.example.com/\u0000', 'URL_CONTROL_CHARACTER', 'url contains the control character U+0000'],
    ['https://hooks.example.com/\u001b[2J', 'URL_CONTROL_CHARACTER', 'url contains the control character U+001B'],
    ['https://hooks.example.com/\u202egnp.exe', 'URL_CONTROL_CHARACTER', 'url contains the control character U+202E'],
  ])('%j is refused', async (url, code, message) => {
    const err = await refusal(url, development);
    expect([err.code, err.message]).toEqual([code, message]);
  });

  test('a refusal is an InvalidInput of the url field, as every edge renders one', async () => {
    const err = await refusal('http://hooks.example.com/', { production: true, lookup: resolver('8.8.8.8') });
    expect(err).toBeInstanceOf(InvalidInput);
    expect([err.field, err.reason, err.code]).toEqual(['url', 'must use https in production', 'URL_SCHEME']);
  });

  test('exactly 2048 characters pass', async () => {
    const url = `https://hooks.example.com/${'a'.repeat(2048 - 26)}`;
    expect(url).toHaveLength(2048);
    await expect(validateWebhookUrl(url, development)).resolves.toBe(url);
  });
});

describe('in development', () => {
  test('any host is accepted without a lookup', async () => {
    const lookup = resolver('127.0.0.1');
    await expect(validateWebhookUrl('http://localhost:3000/hook', { production: false, lookup })).resolves.toBe(
      'http://localhost:3000/hook',
    );
    await expect(validateWebhookUrl('http://10.0.0.1/hook', { production: false, lookup })).resolves.toBe(
      'http://10.0.0.1/hook',
    );
    expect(lookup.calls).toEqual([]);
  });
});

describe('in production', () => {
  test.each([
    ['https://127.0.0.1/', '127.0.0.1 is a loopback address'],
    ['https://2130706433/', '127.0.0.1 is a loopback address'],
    ['https://0x7f.1/', '127.0.0.1 is a loopback address'],
    ['https://0x7f000001/', '127.0.0.1 is a loopback address'],
    ['https://0177.0.0.1/', '127.0.0.1 is a loopback address'],
    ['https://127.1/', '127.0.0.1 is a loopback address'],
    ['https://%31%32%37.0.0.1/', '127.0.0.1 is a loopback address'],
    ['https://127.0.0.1./', '127.0.0.1 is a loopback address'],
    ['https://0/', '0.0.0.0 is an unspecified address'],
    ['https://0.0.0.0/', '0.0.0.0 is an unspecified address'],
    ['https://10.1.2.3/', '10.1.2.3 is a private address'],
    ['https://0xa.0x1.0x2.0x3/', '10.1.2.3 is a private address'],
    ['https://172.16.0.1/', '172.16.0.1 is a private address'],
    ['https://192.168.0.1:8443/', '192.168.0.1 is a private address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    ['https://2852039166/', '169.254.169.254 is a link-local address'],
    ['https://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT address'],
    ['https://[::1]/', '::1 is a loopback address'],
    ['https://[0:0:0:0:0:0:0:1]/', '::1 is a loopback address'],
    ['https://[::]/', ':: is an unspecified address'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is an IPv4-mapped address of 127.0.0.1'],
    ['https://[::ffff:7f00:1]/', '::ffff:7f00:1 is an IPv4-mapped address of 127.0.0.1'],
    ['https://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe is an IPv4-mapped address of 169.254.169.254'],
    ['https://[64:ff9b::10.0.0.1]/', '64:ff9b::a00:1 is a NAT64 address of 10.0.0.1'],
    ['https://[2002:7f00:1::]/', '2002:7f00:1:: is a 6to4 address of 127.0.0.1'],
    ['https://[fe80::1]/', 'fe80::1 is a link-local address'],
    ['https://[fd00::1]/', 'fd00::1 is a unique-local address'],
    ['https://[ff02::1]/', 'ff02::1 is a multicast address'],
    ['https://[::7f00:1]/', '::7f00:1 is an IPv4-compatible address of 127.0.0.1'],
  ])('the literal %s is refused without a lookup', async (url, reason) => {
    const lookup = resolver('8.8.8.8');
    const err = await refusal(url, { production: true, lookup });
    expect([err.code, err.message]).toEqual(['URL_ADDRESS_REFUSED', `url is refused: ${reason}`]);
    expect(lookup.calls).toEqual([]);
  });

  test('a public literal is accepted without a lookup', async () => {
    const lookup = resolver('127.0.0.1');
    await expect(validateWebhookUrl('https://8.8.8.8/hook', { production: true, lookup })).resolves.toBe(
      'https://8.8.8.8/hook',
    );
    await expect(validateWebhookUrl('https://[2606:4700::1111]/', { production: true, lookup })).resolves.toBe(
      'https://[2606:4700::1111]/',
    );
    expect(lookup.calls).toEqual([]);
  });

  test('a name is resolved, and every one of its addresses must be public', async () => {
    const good = resolver('93.184.216.34', '2606:2800:220:1::');
    await expect(validateWebhookUrl('https://hooks.example.com/x', { production: true, lookup: good })).resolves.toBe(
      'https://hooks.example.com/x',
    );
    expect(good.calls).toEqual(['hooks.example.com']);

    const mixed = resolver('93.184.216.34', '10.0.0.7');
    const err = await refusal('https://hooks.example.com/x', { production: true, lookup: mixed });
    expect([err.code, err.message]).toEqual([
      'URL_ADDRESS_REFUSED',
      'url is refused: hooks.example.com resolves to a refused address (10.0.0.7 is a private address)',
    ]);
  });

  test.each([['127.0.0.1'], ['::1'], ['::ffff:127.0.0.1'], ['0.0.0.0'], ['169.254.169.254'], ['fd00::5']])(
    'a name resolving to %s is refused',
    async (address) => {
      const err = await refusal('https://hooks.example.com/', { production: true, lookup: resolver(address) });
      expect(err.code).toBe('URL_ADDRESS_REFUSED');
    },
  );

  test('localhost is refused through the system resolver', async () => {
    const err = await refusal('https://localhost:8443/hook', { production: true });
    expect(err.code).toBe('URL_ADDRESS_REFUSED');
    expect(err.message).toMatch(
      /^url is refused: localhost resolves to a refused address \((127\.0\.0\.1|::1) is a loopback address\)$/,
    );
  });

  test('a host that does not resolve, or to nothing, is refused', async () => {
    const notFound: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    };
    const err = await refusal('https://nowhere.example/', { production: true, lookup: notFound });
    expect([err.code, err.message]).toEqual([
      'URL_UNRESOLVED',
      'url is refused: nowhere.example could not be resolved (ENOTFOUND)',
    ]);
    const empty = await refusal('https://nowhere.example/', { production: true, lookup: resolver() });
    expect([empty.code, empty.message]).toEqual(['URL_UNRESOLVED', 'url is refused: nowhere.example has no address']);
  });

  test('a resolver that never answers is given up on in time', async () => {
    const started = performance.now();
    const err = await refusal('https://slow.example/', {
      production: true,
      lookup: () => new Promise(() => {}),
      resolveTimeoutMs: 200,
    });
    expect([err.code, err.message]).toEqual([
      'URL_UNRESOLVED',
      'url is refused: slow.example could not be resolved within 200 ms',
    ]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('a resolver answering something other than an address is refused', async () => {
    const err = await refusal('https://hooks.example.com/', { production: true, lookup: resolver('localhost') });
    expect(err.message).toBe(
      'url is refused: hooks.example.com resolves to a refused address (localhost is not an IP address)',
    );
  });

  test('an allow-listed host passes, whatever it resolves to; http still does not', async () => {
    const allowHosts = parseAllowHosts('localhost, 127.0.0.1, hooks.internal');
    const lookup = resolver('127.0.0.1');
    const ok = (url: string) => validateWebhookUrl(url, { production: true, allowHosts, lookup });
    await expect(ok('https://localhost:8443/hook')).resolves.toBe('https://localhost:8443/hook');
    await expect(ok('https://LOCALHOST./hook')).resolves.toBe('https://localhost./hook');
    await expect(ok('https://127.0.0.1/hook')).resolves.toBe('https://127.0.0.1/hook');
    await expect(ok('https://0x7f.1/hook')).resolves.toBe('https://127.0.0.1/hook');
    await expect(ok('https://hooks.internal/hook')).resolves.toBe('https://hooks.internal/hook');
    expect((await refusal('https://localhost.example.com/', { production: true, allowHosts, lookup })).code).toBe(
      'URL_ADDRESS_REFUSED',
    );
    expect((await refusal('https://127.0.0.2/', { production: true, allowHosts, lookup })).code).toBe(
      'URL_ADDRESS_REFUSED',
    );
    expect((await refusal('http://localhost/', { production: true, allowHosts, lookup })).code).toBe('URL_SCHEME');
  });
});
