import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { FindingsResponse } from '../api/types';
import { useServices } from '../app/context';

/** Polled every 30 s (the hub does not carry findings); shared with the findings page's query. */
export function useFindings() {
  const { api } = useServices();
  return useQuery({ queryKey: ['findings'], queryFn: () => api.get<FindingsResponse>('/api/config/findings'), refetchInterval: 30_000 });
}

/** Over every page while a blocking finding stands (spec: "a degraded banner over every page"). */
export function DegradedBanner() {
  const findings = useFindings();
  const blocking = findings.data?.blocking ?? 0;
  if (blocking === 0) return null;
  return (
    <div role="alert" className="bg-red-700 px-4 py-2 text-sm text-white dark:bg-red-900">
      The service is degraded: {blocking} blocking finding{blocking === 1 ? '' : 's'}.{' '}
      <Link to="/findings" className="font-semibold underline">See the findings</Link>
    </div>
  );
}
