import { type ReactElement, useCallback, useEffect, useRef, useState } from 'react';
import type { RunEvent } from '../../api/types';
import { useRunEvents } from '../../app/run-events-store';

export interface EventsSnapshot {
  events: readonly RunEvent[];
  revision: number;
  error: unknown;
  retry(): void;
}

/**
 * The run's events for a panel, re-rendering it at most once per animation frame: the store
 * notifies per hub event, and a burst of hundreds in a frame must not re-render the log each time.
 * The store is read by a child that renders nothing (cheap per event); the panel takes a snapshot
 * from it in the next frame.
 */
export function useBatchedEvents(runId: string, watch: boolean): [EventsSnapshot | null, () => ReactElement] {
  const [snapshot, setSnapshot] = useState<EventsSnapshot | null>(null);
  const pending = useRef<EventsSnapshot | null>(null);
  const frame = useRef(0);
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  const take = useCallback((next: EventsSnapshot) => {
    pending.current = next;
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      setSnapshot(pending.current);
    });
  }, []);
  const Source = useCallback(() => <EventsSource runId={runId} watch={watch} onChange={take} />, [runId, watch, take]);
  return [snapshot, Source];
}

function EventsSource({ runId, watch, onChange }: { runId: string; watch: boolean; onChange: (s: EventsSnapshot) => void }) {
  const view = useRunEvents(runId, watch);
  const { events, revision, error, retry } = view;
  useEffect(() => onChange({ events, revision, error, retry }), [events, revision, error, onChange]); // eslint-disable-line react-hooks/exhaustive-deps
  return null;
}
