import { readEnvironment } from './config/environment.js';
import { createServer } from './server.js';

const env = readEnvironment();
const app = await createServer(env);
try {
  await app.listen(env.port, env.host);
} catch (error) {
  // The one failure the server cannot serve around: nowhere to listen.
  console.error(`pipeline-service cannot listen on ${env.host}:${env.port}: ${(error as Error).message}`);
  await app.close();
  process.exit(1);
}
