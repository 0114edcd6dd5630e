import { useEffect, useState } from 'react';

/** The current time, ticking while `live` (live durations); still otherwise. */
export function useNow(live: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [live, everyMs]);
  return now;
}
