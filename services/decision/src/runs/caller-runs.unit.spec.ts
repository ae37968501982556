import type { StoredEvent } from '@runledger/event-log';
import { upToLimit } from './caller-runs';

/** Events of commits with these sizes, in log order (commit k at sequence 10 + k). */
function commits(...sizes: number[]): StoredEvent[] {
  return sizes.flatMap((size, k) => Array.from({ length: size }, (_, index) => ({ seq: 10 + k, index, type: 'E', data: {}, subject: 's', metadata: {} }) as unknown as StoredEvent));
}

/** Follows a run the way any client does: `after` = the last commit answered, until nothing is left. */
function follow(all: StoredEvent[], limit: number): number[][] {
  const pages: number[][] = [];
  for (let after = 0; ;) {
    const page = upToLimit(all.filter((e) => e.seq > after), limit);
    if (!page.length) return pages;
    pages.push(page.map((e) => e.seq));
    after = page[page.length - 1].seq;
  }
}

describe('rl.caller.<caller>.runs.events limit (probe finding: limit 2 answered 3 events)', () => {
  it('a page holds at most `limit` events, in whole commits, so following with `after` alone loses and repeats nothing', () => {
    const all = commits(1, 1, 2, 1, 1);
    const pages = follow(all, 2);
    expect(pages).toEqual([[10, 11], [12, 12], [13, 14]]);
    expect(pages.flat()).toHaveLength(all.length);
  });

  it('a commit larger than `limit` comes whole and alone (a commit is never split)', () => {
    expect(follow(commits(1, 3, 2, 1), 2)).toEqual([[10], [11, 11, 11], [12, 12], [13]]);
  });
});
