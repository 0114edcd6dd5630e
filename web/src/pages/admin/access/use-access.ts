import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useServices } from '../../../app/context';
import type { AccessOverview, AccessRoles } from '../admin-types';

export function useAccessOverview() {
  const { api } = useServices();
  return useQuery({ queryKey: ['access', 'overview'], queryFn: () => api.get<AccessOverview>('/api/access') });
}

export function useAccessRoles() {
  const { api } = useServices();
  return useQuery({ queryKey: ['access', 'roles'], queryFn: () => api.get<AccessRoles>('/api/access/roles') });
}

/** Every role a grant or a mapping may name: the built-in three, then the custom ones. */
export function useRoleNames(): string[] {
  const roles = useAccessRoles();
  return roles.data ? [...roles.data.builtIn, ...roles.data.custom].map((r) => r.name) : ['reader', 'operator', 'admin'];
}

/** A write of the Access surface: every pane reads the one document, so all of it is read again. */
export function useAccessWrite<T, V>(write: (vars: V) => Promise<T>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: write,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['access'] });
      // A grant may change the caller's own roles, and every write is a change record.
      void queryClient.invalidateQueries({ queryKey: ['identity'] });
      void queryClient.invalidateQueries({ queryKey: ['changes'] });
    },
  });
}

export const enc = encodeURIComponent;
