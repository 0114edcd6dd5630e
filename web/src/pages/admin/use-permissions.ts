import { usePermission } from '../../app/identity';

/** Two permissions held together (a route that needs both); both hooks always run. */
export function useAllPermissions(a: string, b: string): boolean {
  const first = usePermission(a);
  const second = usePermission(b);
  return first && second;
}
