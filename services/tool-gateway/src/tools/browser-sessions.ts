import type { Browser, BrowserContext, Page } from 'playwright-core';
import { settingText } from '@runledger/kernel';
import { GuardedProxy } from './guarded-proxy';
import { DestinationGuard, parseAllowedHosts } from './public-address';

/** Debian's Chromium; flags that keep a headless start fast and quiet on a closed network. */
const CHROMIUM_PATH = settingText('CHROMIUM_PATH');
/** Parsed at start: a malformed entry stops the gateway, naming the setting. */
const ALLOWED_HOSTS = parseAllowedHosts(settingText('RL_BROWSER_ALLOWED_HOSTS'));
// WebRTC's UDP would bypass the context's proxy: Chromium is told to send none.
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/**
 * One headless Chromium per tool-gateway process, started on first use, and one isolated browser context and
 * page per session key (a campaign's case), so the page a navigate opened is the page a later click acts on
 * and no campaign sees another's cookies.
 *
 * Every request a context makes goes through its own GuardedProxy (SSRF): the navigation, each redirect hop,
 * sub-resources, frames, popups, workers and WebSockets; one to a non-public address never leaves the gateway.
 */
export class BrowserSessions {
  private browser?: Promise<Browser>;
  private readonly pages = new Map<string, Promise<{ context: BrowserContext; page: Page; proxy: GuardedProxy }>>();
  private readonly proxies = new Set<GuardedProxy>();

  constructor(readonly guard = new DestinationGuard(ALLOWED_HOSTS)) {}

  page(key: string): Promise<Page> {
    return this.session(key).then((e) => e.page);
  }

  /** The reasons the session's proxy refused requests since last asked (a navigation's redirect, a sub-resource). */
  async takeRefusals(key: string): Promise<string[]> {
    return (await this.session(key)).proxy.takeRefusals();
  }

  private session(key: string) {
    let entry = this.pages.get(key);
    if (!entry) {
      entry = this.launch().then(async (b) => {
        const proxy = await GuardedProxy.start(this.guard);
        this.proxies.add(proxy);
        const context = await b.newContext({ proxy: { server: proxy.url } });
        return { context, page: await context.newPage(), proxy };
      });
      entry.catch(() => this.pages.delete(key));
      this.pages.set(key, entry);
    }
    return entry;
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
    const next = current.context.newPage().then((page) => ({ ...current, page }));
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
    await Promise.all([...this.proxies].map((p) => p.close()));
    this.proxies.clear();
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
