import { describe, expect, it } from 'vitest';
import { FollowMode } from './follow';

const at = (scrollTop: number, scrollHeight = 2000, clientHeight = 500) => ({ scrollTop, scrollHeight, clientHeight });

describe("the log's follow mode", () => {
  it('follows from the start and keeps following through its own scrolls to the end', () => {
    const mode = new FollowMode();
    expect(mode.following).toBe(true);
    mode.willScrollToEnd();
    mode.onScroll(at(1500));
    mode.willScrollToEnd();
    mode.onScroll(at(2500, 3000));
    expect(mode.following).toBe(true);
  });

  it('stops following when the reader scrolls up, and stays stopped while lines arrive', () => {
    const mode = new FollowMode();
    mode.onScroll(at(1500));
    expect(mode.onScroll(at(1200))).toBe(true);
    expect(mode.following).toBe(false);
    // New lines grow the log below the reader: they are no longer at the bottom, nothing changes.
    mode.onScroll(at(1200, 2600));
    expect(mode.following).toBe(false);
  });

  it('follows again when the reader scrolls back to the bottom, or jumps to the latest', () => {
    const mode = new FollowMode();
    mode.onScroll(at(1500));
    mode.onScroll(at(1000));
    expect(mode.onScroll(at(1490))).toBe(true);
    expect(mode.following).toBe(true);
    mode.onScroll(at(900));
    expect(mode.following).toBe(false);
    mode.jumpToLatest();
    expect(mode.following).toBe(true);
    mode.onScroll(at(1500));
    expect(mode.following).toBe(true);
  });

  it('does not count a scroll made by the log itself as the reader leaving the bottom', () => {
    const mode = new FollowMode();
    mode.onScroll(at(1500));
    mode.willScrollToEnd();
    // The log re-laid out and its own scroll landed above the new bottom.
    mode.onScroll(at(1400, 2200));
    expect(mode.following).toBe(true);
  });
});
