import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium, headless, with nothing phoning home. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A relying party's callback endpoint: a real HTTP server that records where the browser landed. */
export interface Callback {
  redirectUri: string;
  postLogoutUri: string;
  close(): Promise<void>;
}

export async function startCallback(): Promise<Callback> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Relying party</title><p>Back at the app: ${req.url?.split('?')[0]}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    postLogoutUri: `http://127.0.0.1:${port}/logged-out`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Fills and submits the Roster login page. */
export async function signInOnPage(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
