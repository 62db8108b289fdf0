import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

// The reverse-proxy configurations of docs/configuration.md, run for real in front of Formgate on
// loopback ports: the tests read them from the page, so the page cannot drift from what is tested.

const DOCS = fs.readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const installed = (...files: string[]) => files.find((file) => fs.existsSync(file));

export const NGINX_BINARY = installed('/usr/sbin/nginx', '/usr/bin/nginx');
export const CADDY_BINARY = installed('/usr/bin/caddy', '/usr/local/bin/caddy');

/** The first fenced block of `language` in docs/configuration.md, or the first that contains `marker`. */
export function documented(language: string, marker = ''): string {
  const blocks = [...DOCS.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
  const block = blocks.find((text) => text.includes(marker));
  assert.ok(block, `docs/configuration.md has a ${language} block${marker ? ` with ${marker}` : ''}`);
  return block;
}

/** A loopback port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** nginx in the foreground with documented `server` blocks, listening on `port` without TLS, its files in `folder`. */
export function startNginx(folder: string, port: number, servers: string): ChildProcess {
  const file = path.join(folder, 'nginx.conf');
  fs.writeFileSync(
    file,
    [
      'daemon off;',
      'master_process off;',
      `pid ${folder}/nginx.pid;`,
      `error_log ${folder}/error.log;`,
      'events {}',
      'http {',
      '  access_log off;',
      `  client_body_temp_path ${folder}/body; proxy_temp_path ${folder}/proxy;`,
      `  fastcgi_temp_path ${folder}/fastcgi; uwsgi_temp_path ${folder}/uwsgi; scgi_temp_path ${folder}/scgi;`,
      servers.replaceAll('listen 443 ssl;', `listen 127.0.0.1:${port};`).replace(/^\s*ssl_certificate(_key)?\s.*$/gm, ''),
      '}',
    ].join('\n'),
  );
  return spawn(NGINX_BINARY!, ['-p', folder, '-c', file, '-e', path.join(folder, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Caddy with documented sites, on plain HTTP at `port` instead of certificates for the public names, with no admin endpoint. */
export function startCaddy(folder: string, port: number, sites: string): ChildProcess {
  const file = path.join(folder, 'Caddyfile');
  const plain = sites
    .replaceAll('forms.example.com {', `http://forms.example.com:${port} {`)
    .replaceAll('submit.example.com {', `http://submit.example.com:${port} {`);
  fs.writeFileSync(file, `{\n  admin off\n}\n\n${plain}`);
  return spawn(CADDY_BINARY!, ['run', '--config', file, '--adapter', 'caddyfile'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HOME: folder, XDG_DATA_HOME: folder, XDG_CONFIG_HOME: folder },
  });
}
