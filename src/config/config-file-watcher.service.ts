import { readFile, stat } from 'node:fs/promises';
import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from './config.service.js';
import { fileHashOf } from './load-service-config.js';

/** How often the bootstrap file's path is looked at (one stat); a change is applied once it held still for one look. */
export const CONFIG_WATCH_INTERVAL_MS = 1_000;

/**
 * Live reload of the bootstrap file (SERVICE_CONFIG). Polls the path rather than using fs.watch:
 * editors that save by writing a new file and renaming it over the old one, and Kubernetes
 * ConfigMap volumes (a symlink swapped), replace the file's inode, and a watch on the old inode then
 * hears nothing more. A stat of the path always sees what the path names now.
 *
 * A change (inode, size or times) is applied only once the next look finds it unchanged, so a file
 * caught half-written is not loaded; then the content is hashed and the configuration reloaded only
 * when the bytes differ from those last loaded (a `touch` reloads nothing).
 */
@Injectable()
export class ConfigFileWatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ConfigFileWatcher');
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  /** The path's stat at the previous look. */
  private seen: string | null = null;
  /** The stat whose content was last compared with what is loaded. */
  private checked: string | null = null;

  constructor(private readonly config: ConfigService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.look(), CONFIG_WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One look at the file; public so a caller that knows it changed need not wait. */
  async look(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const now = await signatureOf(this.config.file.path);
      const settled = now === this.seen;
      this.seen = now;
      if (!settled || now === this.checked) return;
      this.checked = now;
      const hash = await hashOf(this.config.file.path);
      if (hash === this.config.fileHash) return;
      this.logger.log(`bootstrap file ${this.config.file.path} ${hash === null ? 'is gone' : 'changed'}: reloading the configuration`);
      this.config.reload();
    } catch (error) {
      this.logger.warn(`could not look at the bootstrap file: ${(error as Error).message}`);
    } finally {
      this.busy = false;
    }
  }
}

async function signatureOf(path: string): Promise<string> {
  try {
    const s = await stat(path);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return 'absent';
  }
}

async function hashOf(path: string): Promise<string | null> {
  try {
    return fileHashOf(await readFile(path));
  } catch {
    return null;
  }
}
