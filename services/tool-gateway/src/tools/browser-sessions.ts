import type { Browser, BrowserContext, Page } from 'playwright-core';
import { settingText } from '@runledger/kernel';

/** Debian's Chromium; flags that keep a headless start fast and quiet on a closed network. */
const CHROMIUM_PATH = settingText('CHROMIUM_PATH');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * One headless Chromium per tool-gateway process, started on first use, and one isolated browser context and
 * page per session key (a campaign's case), so the page a navigate opened is the page a later click acts on
 * and no campaign sees another's cookies.
 */
export class BrowserSessions {
  private browser?: Promise<Browser>;
  private readonly pages = new Map<string, Promise<{ context: BrowserContext; page: Page }>>();

  page(key: string): Promise<Page> {
    let entry = this.pages.get(key);
    if (!entry) {
      entry = this.launch().then(async (b) => {
        const context = await b.newContext();
        return { context, page: await context.newPage() };
      });
      entry.catch(() => this.pages.delete(key));
      this.pages.set(key, entry);
    }
    return entry.then((e) => e.page);
  }

  /**
   * Gives the session a fresh page in its context (cookies kept) in place of `stale`. A navigation that failed
   * (unreachable host, refused connection, timeout) has Chromium commit its error page, chrome-error://chromewebdata/,
   * after goto has already rejected; that late commit, and each navigation it interrupts in turn, would break the
   * session's next navigations one after another. A new page has nothing pending. Nothing happens if the session
   * already moved on from `stale` (another call renewed it).
   */
  async renew(key: string, stale: Page): Promise<void> {
    const entry = this.pages.get(key);
    const current = await entry?.catch(() => undefined);
    if (!entry || current?.page !== stale || this.pages.get(key) !== entry) return;
    const next = current.context.newPage().then((page) => ({ context: current.context, page }));
    next.catch(() => this.pages.delete(key));
    this.pages.set(key, next);
    await stale.close().catch(() => undefined);
    await next.catch(() => undefined);
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    this.pages.clear();
    if (browser) await (await browser.catch(() => undefined))?.close().catch(() => undefined);
  }

  private launch(): Promise<Browser> {
    if (!this.browser) {
      // Loaded on first use: playwright-core alone is ~70 MiB resident in a gateway that may never browse.
      this.browser = import('playwright-core').then(({ chromium }) => chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true }));
      this.browser.catch(() => (this.browser = undefined));
    }
    return this.browser;
  }
}

export const BROWSER_SESSIONS = new BrowserSessions();
