import { DateTimeFilter, TextFilter } from './page.query.js';

/** Query of `GET /api/runs/statistics`. */
export class StatisticsQuery {
  @DateTimeFilter('since', 'only runs created at or after (ISO 8601)')
  since?: string;

  @TextFilter('project', 'project name')
  project?: string;
}
