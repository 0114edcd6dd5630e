/**
 * The log's follow mode: it follows new lines while the reader is at the bottom, and stops the
 * moment they scroll up (so lines do not move under their eyes), offering "Jump to latest".
 * Only a scroll the reader made changes the mode; the scrolls the log makes itself do not.
 */
export const BOTTOM_SLACK_PX = 24;

export interface ScrollPosition { scrollTop: number; scrollHeight: number; clientHeight: number }

export function atBottom(p: ScrollPosition, slack = BOTTOM_SLACK_PX): boolean {
  return p.scrollHeight - p.clientHeight - p.scrollTop <= slack;
}

export class FollowMode {
  private followingNow = true;
  private programmatic = false;
  private lastTop = 0;

  get following(): boolean {
    return this.followingNow;
  }

  /** Call right before the log scrolls itself to the end. */
  willScrollToEnd(): void {
    this.programmatic = true;
  }

  /** Call on every scroll event; answers whether the mode changed. */
  onScroll(p: ScrollPosition): boolean {
    const before = this.followingNow;
    if (this.programmatic) {
      this.programmatic = false;
    } else if (p.scrollTop < this.lastTop && !atBottom(p)) {
      this.followingNow = false;
    } else if (atBottom(p)) {
      this.followingNow = true;
    }
    this.lastTop = p.scrollTop;
    return before !== this.followingNow;
  }

  jumpToLatest(): void {
    this.followingNow = true;
    this.programmatic = true;
  }
}
