import { TAB_BUILD } from '../api/settings';
import { useServerBuildMismatch } from '../app/build-notice';
import { Button } from '../components/ui';

/** The server now serves another build than this tab runs: offer the reload. */
export function BuildNotice() {
  const serverBuild = useServerBuildMismatch();
  if (!serverBuild) return null;
  return (
    <div role="status" className="flex items-center gap-3 bg-amber-100 px-4 py-2 text-sm text-amber-950 dark:bg-amber-900 dark:text-amber-50">
      <span>A new version of the dashboard is available (this tab runs {TAB_BUILD}, the server {serverBuild}).</span>
      <Button onPress={() => window.location.reload()}>Reload</Button>
    </div>
  );
}
