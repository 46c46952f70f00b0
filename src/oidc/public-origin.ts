import type { IncomingMessage } from 'node:http';
import type Provider from 'oidc-provider';

/**
 * Makes the provider (a Koa app) take its scheme and host from BASE_URL and its client address from
 * Express, so no request header can change a URL it builds (urlFor reads ctx.href) or the address it sees.
 */
export function pinToBaseUrl(provider: Provider, baseUrl: string): void {
  const base = new URL(baseUrl);
  const protocol = base.protocol.slice(0, -1);
  // Koa itself reads no X-Forwarded-* header: Express applies TRUST_PROXY, once, for both.
  provider.proxy = false;
  Object.defineProperties(provider.request, {
    protocol: { get: () => protocol },
    host: { get: () => base.host },
    href: {
      get(this: { originalUrl: string }) {
        return base.origin + pathOf(this.originalUrl);
      },
    },
    URL: {
      get(this: { originalUrl: string }) {
        return new URL(base.origin + pathOf(this.originalUrl));
      },
    },
    // The address Express computed under TRUST_PROXY (the provider only runs behind our Express app).
    ip: {
      get(this: { req: IncomingMessage & { ip?: string } }) {
        return this.req.ip ?? this.req.socket.remoteAddress ?? '';
      },
    },
  });
}

/** The path and query of a request target, also of an absolute-form one (`GET http://evil.test/auth`). */
function pathOf(target: string): string {
  if (!/^https?:\/\//i.test(target)) return target.startsWith('/') ? target : `/${target}`;
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return '/';
  }
}
