import { useQuery } from '@tanstack/react-query';
import type { Identity } from '../api/types';
import { useServices } from './context';

export function useIdentity() {
  const { api } = useServices();
  return useQuery({ queryKey: ['identity'], queryFn: () => api.get<Identity>('/api/identity'), staleTime: 60_000 });
}

/**
 * Whether the caller holds a permission, for showing a control at all. With no authority
 * configured nothing authenticates and the server refuses nothing, so everything is offered;
 * while the identity loads nothing is.
 */
export function usePermission(permission: string): boolean {
  const { session } = useServices();
  const identity = useIdentity();
  if (!session.enabled) return true;
  return identity.data?.permissions?.includes(permission) ?? false;
}
