import { Inject, Injectable, Logger } from '@nestjs/common';
import { FindingsService } from '../findings/findings.service.js';
import { SERVICE_ENVIRONMENT } from './config.tokens.js';
import type { ServiceEnvironment } from './environment.js';
import { type LoadedConfig, loadServiceConfig } from './load-service-config.js';
import type { ServiceConfig } from './service-config.js';

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
    const loaded = loadServiceConfig(this.env);
    this.findings.set(FINDINGS_SOURCE, loaded.findings);
    this.logger.log(`configuration loaded from ${loaded.file.present ? loaded.file.path : 'built-in defaults'}: ` +
      `${Object.keys(loaded.config.projects).length} project(s), ${loaded.findings.length} finding(s)`);
    return loaded;
  }
}
