import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { readEnvironment } from '../config/environment.js';
import { doctor, formatDoctor } from './doctor.command.js';
import { initProject } from './init.command.js';
import { migrate } from './migrate.command.js';
import { runPipeline } from './run.command.js';

const USAGE = `usage:
  pipeline-service doctor [--config FILE] [--json]   print findings and preflight checks; exit 1 when anything blocks
  pipeline-service migrate                           apply database migrations and exit
  pipeline-service run PIPELINE --project P [--ticket T]   run one pipeline in-process; exit 0 on success, 1 on failure
  pipeline-service init --project P [--config FILE]  add the missing context files of each repository in a pull request (branch service/init);
                                                     one line per repository; exit 0 when every one is opened, updated or complete`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const env = readEnvironment();
  switch (command) {
    case 'doctor': {
      const { values } = parseArgs({ args: rest, options: { config: { type: 'string' }, json: { type: 'boolean' } } });
      const target = { ...env, configPath: values.config ?? env.configPath };
      const report = await doctor(target);
      console.log(values.json ? JSON.stringify(report, null, 2) : formatDoctor(report, target.configPath));
      return report.blocking > 0 ? 1 : 0;
    }
    case 'migrate': {
      const applied = await migrate(env);
      console.log(applied.length === 0 ? 'database is up to date' : `applied ${applied.length} migration(s): ${applied.join(', ')}`);
      return 0;
    }
    case 'run': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { project: { type: 'string' }, ticket: { type: 'string' } } });
      if (positionals.length !== 1 || !values.project) {
        console.error(USAGE);
        return 2;
      }
      const ok = await runPipeline(env, { pipeline: positionals[0] as string, project: values.project, ticket: values.ticket ?? null }, (line) => console.log(line), (line) => console.error(line));
      return ok ? 0 : 1;
    }
    case 'init': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { project: { type: 'string' }, config: { type: 'string' } } });
      if (positionals.length !== 0 || !values.project) {
        console.error(USAGE);
        return 2;
      }
      const ok = await initProject({ ...env, configPath: values.config ?? env.configPath }, { project: values.project }, (line) => console.log(line), (line) => console.error(line));
      return ok ? 0 : 1;
    }
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      console.error(`unknown command: ${command}\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`pipeline-service: ${(error as Error).message}`);
    process.exit(1);
  },
);
