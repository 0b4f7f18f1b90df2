/**
 * The page's files (`ui/`: HTML, CSS and browser modules, no build step), read once when the studio
 * starts and served from memory. Only these names are served: no path from the URL reaches the disk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { ServerResponse } from 'node:http';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The page may load and call only the studio itself; nothing inline, nothing framed. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // The token is in the page's URL: no request may carry it elsewhere as a Referer.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export interface Asset {
  type: string;
  body: Buffer;
}

export function loadAssets(dir = join(__dirname, 'ui')): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type) assets.set(`/${name}`, { type, body: readFileSync(join(dir, name)) });
  }
  const index = assets.get('/index.html');
  if (index) assets.set('/', index);
  return assets;
}

export function sendAsset(res: ServerResponse, asset: Asset, head: boolean): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type, 'content-length': asset.body.length });
  res.end(head ? undefined : asset.body);
}
