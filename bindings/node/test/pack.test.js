'use strict';
// `npm pack` makes a tarball that installs (offline: the package has no
// dependencies) and loads.
const test = require('node:test');
const assert = require('node:assert');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

test('npm pack produces an installable package', (t) => {
  const npm = childProcess.spawnSync('npm', ['--version'], { encoding: 'utf8' });
  if (npm.status !== 0) {
    t.skip('npm is not installed');
    return;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'srt-node-pack-'));
  const src = path.join(work, 'src');
  fs.cpSync(path.join(__dirname, '..'), src, { recursive: true });
  const env = { ...process.env, npm_config_cache: path.join(work, 'cache') };
  const p = childProcess.spawnSync('npm', ['pack', '--pack-destination', work], { cwd: src, encoding: 'utf8', env });
  assert.strictEqual(p.status, 0, p.stderr);
  const tgz = fs.readdirSync(work).find((f) => f.endsWith('.tgz'));
  assert.ok(tgz, 'a tarball');
  const inst = path.join(work, 'inst');
  fs.mkdirSync(inst);
  const i = childProcess.spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund',
    '--prefix', inst, path.join(work, tgz)], { encoding: 'utf8', env });
  assert.strictEqual(i.status, 0, i.stderr);
  const pkgDir = path.join(inst, 'node_modules', '@srt', 'sandbox-runtime');
  for (const f of ['index.js', 'index.d.ts', 'package.json']) {
    assert.ok(fs.existsSync(path.join(pkgDir, f)), f);
  }
  const m = require(pkgDir);
  assert.strictEqual(typeof m.SandboxManager.wrapWithSandbox, 'function');
  fs.rmSync(work, { recursive: true, force: true });
});
