import { Inject, Injectable, Logger } from '@nestjs/common';
import { FindingsService } from '../findings/findings.service.js';
import { SERVICE_ENVIRONMENT } from './config.tokens.js';
import type { ServiceEnvironment } from './environment.js';
import { type LoadedConfig, loadServiceConfig } from './load-service-config.js';
import type { ServiceConfig } from './service-config.js';
import type { StoredSettings } from '../settings/settings-document.js';

const FINDINGS_SOURCE = 'configuration';
type Listener = (config: ServiceConfig) => void;

/**
 * Holds the current configuration. Loaded once at construction; `reload()` swaps it whole
 * (listeners re-read what they cache). Load problems are findings, never exceptions.
 */
@Injectable()
export class ConfigService {
  private readonly logger = new Logger(ConfigService.name);
  private loaded: LoadedConfig;
  private readonly listeners = new Set<Listener>();
  /** Decrypted stored secrets (SecretsService keeps them current); `${NAME}` resolves against them. */
  private stored: Readonly<Record<string, string>> = {};
  /** Stored settings (SettingsStore keeps them current), laid over the file before it is read. */
  private settings: StoredSettings = {};

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
    this.stored = stored;
    return this.reload();
  }

  /** New stored settings: laid over the file and the configuration re-read at once (no restart). */
  setStoredSettings(settings: StoredSettings): ServiceConfig {
    this.settings = settings;
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
    const loaded = loadServiceConfig(this.env, this.env.configPath, this.stored, this.settings);
    this.findings.set(FINDINGS_SOURCE, loaded.findings);
    this.logger.log(`configuration loaded from ${loaded.file.present ? loaded.file.path : 'built-in defaults'}: ` +
      `${Object.keys(loaded.config.projects).length} project(s), ${loaded.findings.length} finding(s)`);
    return loaded;
  }
}
