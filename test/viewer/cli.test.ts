// The `nous-session-invariant view` command: its flags, what it prints, that
// it stops on SIGTERM, and what its page server answers besides the page.

import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, appEnvironment, runNode } from '../support/run-node';
import { startViewer, type RunningViewer } from '../../src/viewer/viewer';
import packageJson from '../../package.json';

const BIN = 'dist/viewer/bin.js';

describe('the bin', () => {
  it('is the package’s bin, named after it', () => {
    expect(packageJson.bin).toEqual({ 'nous-session-invariant': BIN });
  });

  it('prints its usage on --help, and refuses unknown commands and bad flags with exit code 2', async () => {
    const help = await runNode([BIN, 'view', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--otlp-port N[\s\S]*--host ADDRESS[\s\S]*--jaeger URL[\s\S]*--max-violations N[\s\S]*--max-body-bytes N/);
    for (const args of [
      ['serve'],
      [],
      ['view', '--port', '70000'],
      ['view', '--max-violations', '0'],
      ['view', '--jaeger', 'javascript:alert(1)'],
      ['view', '--nope'],
    ]) {
      const run = await runNode([BIN, ...args], {});
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('Usage: nous-session-invariant view');
    }
  });

  it('says where the page and the OTLP endpoint are, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'view', '--port', '0', '--otlp-port', '0'], { cwd: PACKAGE_ROOT, env: appEnvironment() });
    let out = '';
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        if (out.includes('OTLP/HTTP at')) resolve();
      }),
    );
    expect(out).toMatch(
      /^nous-session-invariant viewer: http:\/\/127\.0\.0\.1:\d+\nreceiving OTLP\/HTTP at http:\/\/127\.0\.0\.1:\d+ \(set OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/127\.0\.0\.1:\d+\)\n$/,
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

function get(url: string, host?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the page server', () => {
  let viewer: RunningViewer | undefined;
  afterEach(async () => viewer?.close());

  it('serves the page, its script and styles with a policy that loads nothing from elsewhere and runs no inline code', async () => {
    viewer = await startViewer({ host: '127.0.0.1', port: 0, otlpPort: 0 });
    for (const path of ['/', '/viewer.js', '/viewer.css']) {
      const res = await get(viewer.pageUrl + path);
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.body).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    }
    expect((await get(`${viewer.pageUrl}/nope`)).status).toBe(404);
  });

  it('on loopback, answers loopback host names only, so a rebound DNS name cannot read it', async () => {
    viewer = await startViewer({ host: '127.0.0.1', port: 0, otlpPort: 0 });
    const port = new URL(viewer.pageUrl).port;
    expect((await get(viewer.pageUrl, `localhost:${port}`)).status).toBe(200);
    expect((await get(viewer.pageUrl, `evil.example:${port}`)).status).toBe(421);
  });
});
