// A deterministic repository for benches, written with `git fast-import` (seconds, not minutes):
// FILES files of ~FILE_BYTES of random-word text (about 6 bits per character, so its size is
// real: zlib saves little), in COMMITS commits: the first adds everything, each later one rewrites
// a few lines of a few files. Packed afterwards, as a host serves it.
import { execFileSync, spawn } from 'node:child_process';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';

/** xorshift32: the same content on every machine and run. */
function random(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

function lineOf(next) {
  const words = [];
  for (let w = 0; w < 10; w++) {
    let word = '';
    const length = 3 + Math.floor(next() * 8);
    for (let i = 0; i < length; i++) word += ALPHABET[Math.floor(next() * ALPHABET.length)];
    words.push(word);
  }
  return `${words.join(' ')}\n`;
}

function fileContent(next, bytes) {
  const lines = [];
  let size = 0;
  while (size < bytes) {
    const line = lineOf(next);
    lines.push(line);
    size += line.length;
  }
  return lines;
}

export const gitEnv = (extra = {}) => ({
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/nonexistent',
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  ...extra,
});

/** Creates the bare repository `path` with branch `main`; answers the working tree's size in bytes. */
export async function generateRepository(path, { files = 5000, fileBytes = 10_000, commits = 200, changesPerCommit = 10 } = {}) {
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', path], { env: gitEnv() });
  const importer = spawn('git', ['fast-import', '--quiet'], { cwd: path, env: gitEnv({ GIT_DIR: path }), stdio: ['pipe', 'inherit', 'inherit'] });
  const done = new Promise((resolve, reject) => importer.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`)))));
  const write = (chunk) => (importer.stdin.write(chunk) ? Promise.resolve() : new Promise((resolve) => importer.stdin.once('drain', resolve)));
  const next = random(0x5eed);
  const pathOf = (i) => `pkg${String(i % 50).padStart(2, '0')}/mod${String(Math.floor(i / 50) % 10)}/file${String(i).padStart(4, '0')}.txt`;
  const contents = [];
  let total = 0;
  for (let commit = 0; commit < commits; commit++) {
    const changed = commit === 0 ? [...Array(files).keys()] : Array.from({ length: changesPerCommit }, () => Math.floor(next() * files));
    let body = `commit refs/heads/main\ncommitter Bench <bench@example.test> ${1_700_000_000 + commit * 60} +0000\n`;
    const message = `change ${commit}\n`;
    body += `data ${Buffer.byteLength(message)}\n${message}`;
    await write(body);
    for (const i of changed) {
      if (commit === 0) contents[i] = fileContent(next, fileBytes);
      else contents[i][Math.floor(next() * contents[i].length)] = lineOf(next);
      const data = Buffer.from(contents[i].join(''));
      await write(`M 100644 inline ${pathOf(i)}\ndata ${data.length}\n`);
      await write(data);
      await write('\n');
    }
    await write('\n');
  }
  importer.stdin.end();
  await done;
  for (const lines of contents) total += lines.reduce((sum, line) => sum + line.length, 0);
  execFileSync('git', ['repack', '-a', '-d', '-q'], { env: gitEnv({ GIT_DIR: path }) });
  return total;
}
