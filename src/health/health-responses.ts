import type { SubsystemStatus } from '../store/subsystem.js';
import type { PreflightReport } from './preflight.js';

/** `GET /health`. */
export interface HealthResponse {
  status: 'ok' | 'degraded';
  timestamp: string;
  preflight: PreflightReport;
  subsystems: SubsystemStatus[];
}

/** `GET /health/ready`. */
export interface ReadinessResponse {
  status: 'ready' | 'not_ready';
  subsystems: SubsystemStatus[];
}
