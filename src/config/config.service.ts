import { Inject, Injectable, Logger } from '@nestjs/common';
import { FindingsService } from '../findings/findings.service.js';
import { SERVICE_ENVIRONMENT } from './config.tokens.js';
import type { ServiceEnvironment } from './environment.js';
import { type BootstrapSetting, type BootstrapValues, bootstrapValuesOf, pinBootstrapSettings } from './bootstrap-settings.js';
import { type LoadedConfig, loadServiceConfig } from './load-service-config.js';
import type { ServiceConfig } from './service-config.js';
import type { StoredSettings } from '../settings/settings-document.js';

const FINDINGS_SOURCE = 'configuration';
type Listener = (config: ServiceConfig) => void;

/**
 * Holds the current configuration. Loaded once at construction; `reload()` swaps it whole
 * (listeners re-read what they cache). Load problems are findings, never exceptions. A reload
 * keeps the bootstrap settings the server started with (see bootstrap-settings.ts) and the last
 * readable file when the file has become unreadable.
 */
@Injectable()
export class ConfigService {
  private readonly logger = new Logger(ConfigService.name);
  private loaded: LoadedConfig;
  private readonly listeners = new Set<Listener>();
  /** Decrypted stored secrets (StoredConfigSync keeps them current); `${NAME}` resolves against them. */
  private stored: Readonly<Record<string, string>> = {};
  /** Stored settings (StoredConfigSync keeps them current), laid over the file before it is read. */
  private settings: StoredSettings = {};
  /** auth.authority / audience / enforce as first loaded: the token validator was built from them. */
  private boot: BootstrapValues | null = null;
  private bootstrap: BootstrapSetting[] = [];

  constructor(
    @Inject(SERVICE_ENVIRONMENT) readonly env: ServiceEnvironment,
    private readonly findings: FindingsService,
  ) {
    this.loaded = this.load();
  }

  get config(): ServiceConfig {
    return this.loaded.config;
  }

  get file(): LoadedConfig['file'] {
    return this.loaded.file;
  }

  /** SHA-256 of the file's bytes as last read (null: it was absent). */
  get fileHash(): string | null {
    return this.loaded.fileHash;
  }

  /** Dotted paths the loader read as secrets in the configuration in force. */
  get secretFields(): readonly string[] {
    return this.loaded.secretFields.map((f) => f.path);
  }

  /** The bootstrap settings: the value in force, the one configured now, and whether a restart is due. */
  get bootstrapSettings(): readonly BootstrapSetting[] {
    return this.bootstrap;
  }

  /** The bootstrap file as parsed with the stored settings over it, before any reference resolved. */
  get raw(): unknown {
    return this.loaded.raw;
  }

  /** The bootstrap file alone, as parsed. */
  get fileRaw(): unknown {
    return this.loaded.fileRaw;
  }

  get storedSettings(): StoredSettings {
    return this.settings;
  }

  /** New stored secrets: the configuration is re-resolved against them at once (no restart). */
  setStoredSecrets(stored: Readonly<Record<string, string>>): ServiceConfig {
    return this.setStored({ secrets: stored });
  }

  /** New stored settings: laid over the file and the configuration re-read at once (no restart). */
  setStoredSettings(settings: StoredSettings): ServiceConfig {
    return this.setStored({ settings });
  }

  /** Both at once (an import changes both): one reload, so no listener sees one without the other. */
  setStored(next: { secrets?: Readonly<Record<string, string>>; settings?: StoredSettings }): ServiceConfig {
    if (next.secrets) this.stored = next.secrets;
    if (next.settings) this.settings = next.settings;
    return this.reload();
  }

  reload(): ServiceConfig {
    this.loaded = this.load();
    for (const listener of this.listeners) listener(this.loaded.config);
    return this.loaded.config;
  }

  onReload(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private load(): LoadedConfig {
    // `this.loaded` is unset during the first load (construction).
    const previous = (this.loaded as LoadedConfig | undefined)?.lastReadable ?? null;
    const loaded = loadServiceConfig(this.env, this.env.configPath, this.stored, this.settings, previous);
    this.boot ??= bootstrapValuesOf(loaded.config);
    const pinned = pinBootstrapSettings(loaded.config, this.boot);
    this.bootstrap = pinned.settings;
    loaded.findings.push(...pinned.findings);
    this.findings.set(FINDINGS_SOURCE, loaded.findings);
    this.logger.log(`configuration loaded from ${loaded.file.present ? loaded.file.path : 'built-in defaults'}: ` +
      `${Object.keys(loaded.config.projects).length} project(s), ${loaded.findings.length} finding(s)`);
    return loaded;
  }
}
