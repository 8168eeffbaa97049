/**
 * `socks5://[user:pass@]host:port`: where SMTP connections go out when a proxy is set. Parsed
 * here, without any dependency, so the CLI can check a flag before it loads the engine.
 */
export interface ProxySettings {
  host: string;
  port: number;
  username?: string;
  password?: string;
}

export class ProxyUrlError extends Error {
  override name = 'ProxyUrlError';
}

const DEFAULT_SOCKS_PORT = 1080;

export function parseProxyUrl(raw: string): ProxySettings {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ProxyUrlError('the proxy must be a URL such as socks5://host:1080');
  }
  // socks5h would have the proxy resolve names: we resolve them ourselves, so the private-network guard holds.
  if (url.protocol !== 'socks5:') throw new ProxyUrlError(`only socks5:// proxies are supported, not ${url.protocol}//`);
  if (url.hostname === '') throw new ProxyUrlError('the proxy URL names no host');
  if (url.pathname !== '' && url.pathname !== '/') throw new ProxyUrlError('the proxy URL must not have a path');
  const port = url.port === '' ? DEFAULT_SOCKS_PORT : Number(url.port);
  const settings: ProxySettings = { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
  if (url.username !== '') settings.username = decodeURIComponent(url.username);
  if (url.password !== '') settings.password = decodeURIComponent(url.password);
  return settings;
}

/** The proxy as it may be shown anywhere: host and port, never the credentials. */
export function describeProxy(proxy: ProxySettings): string {
  const host = proxy.host.includes(':') ? `[${proxy.host}]` : proxy.host;
  return `SOCKS5 proxy ${host}:${proxy.port}`;
}
