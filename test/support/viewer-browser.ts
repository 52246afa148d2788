// The viewer's bin and a headless chromium on its page, for the browser tests
// that need a viewer of their own (options such as --max-violations).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PACKAGE_ROOT, appEnvironment } from './run-node';
import { findProgram } from '../../stack/native';

export interface RunningViewer {
  pageUrl: string;
  otlpUrl: string;
  stop(): void;
}

/** Starts dist/viewer/bin.js on free ports with `args`; resolves once it prints where it listens. */
export function startViewerBin(args: readonly string[] = []): Promise<RunningViewer> {
  const child: ChildProcess = spawn(process.execPath, ['dist/viewer/bin.js', 'view', '--port', '0', '--otlp-port', '0', ...args], {
    cwd: PACKAGE_ROOT,
    env: appEnvironment(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the viewer exited (${code}): ${out}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const page = /viewer: (http:\/\/\S+)/.exec(out);
      const otlp = /OTLP\/HTTP at (http:\/\/\S+)/.exec(out);
      if (page && otlp) resolve({ pageUrl: page[1]!, otlpUrl: otlp[1]!, stop: () => child.kill() });
    });
  });
}

export interface OpenPage {
  page: Page;
  close(): Promise<void>;
}

/** Opens `url` in a headless chromium with a profile of its own, removed on close. */
export async function openInChromium(url: string): Promise<OpenPage> {
  const profile = mkdtempSync(join(tmpdir(), 'nous-viewer-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: findProgram('chromium')!,
    headless: true,
    viewport: { width: 1000, height: 600 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(url);
  return {
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
