import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { BROWSER_SESSIONS } from './browser-sessions';

/** Closes the campaign browser with the service, so no Chromium outlives tool-gateway. */
@Injectable()
export class BrowserShutdown implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await BROWSER_SESSIONS.close();
  }
}
