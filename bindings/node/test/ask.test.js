'use strict';
// The ask callback: initialize(config, askCallback) as in the reference,
// answered through srt-service for a real sandboxed curl (a process of its
// own: SandboxManager is one per process). Run with: node --test test/
const test = require('node:test');
const assert = require('node:assert');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const util = require('node:util');

const { SandboxManager } = require('..');

const exec = util.promisify(childProcess.exec);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'srt-node-ask-'));
fs.chmodSync(work, 0o755);
process.chdir(work);

const config = {
  network: { allowedDomains: [], deniedDomains: ['denied.test'] },
  filesystem: { denyRead: [], allowWrite: [work], denyWrite: [] },
};

function server(seen) {
  return new Promise((resolve) => {
    const s = http.createServer((req, res) => { seen.push(req.url); res.end('hello\n'); });
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

const asked = [];
const seen = { good: [], bad: [], boom: [] };
const servers = {};
const ports = {};

test.before(async () => {
  for (const name of Object.keys(seen)) {
    servers[name] = await server(seen[name]);
    ports[name] = servers[name].address().port;
  }
  await SandboxManager.initialize(config, async ({ host, port }) => {
    asked.push(`${host}:${port}`);
    if (port === ports.good) return true;
    if (port === ports.bad) return { allow: false, reason: 'not <approved>\nfor this session' };
    throw new Error('the prompt crashed');
  });
});

test.after(async () => {
  await SandboxManager.reset();
  for (const s of Object.values(servers)) s.close();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the ask callback allows, denies with a reason, and a throw denies', async () => {
  const curl = 'curl -s -m 10 --noproxy "" -o /dev/null -w "%{http_code} "';
  const cmd = Object.keys(ports).map((n) => `${curl} http://localhost:${ports[n]}/${n}`).join(' ; ');
  const line = await SandboxManager.wrapWithSandbox(cmd);
  // asynchronously: this process answers the questions meanwhile
  const r = await exec(line, { shell: '/bin/bash' });
  assert.deepStrictEqual(r.stdout.trim().split(/\s+/), ['200', '403', '403'], r.stderr);
  assert.deepStrictEqual(asked.sort(), Object.values(ports).map((p) => `localhost:${p}`).sort());
  assert.deepStrictEqual(seen, { good: ['/good'], bad: [], boom: [] });
  const v = SandboxManager.getSandboxViolationStore().getViolationsForCommand(cmd).map((e) => e.line);
  assert.ok(v.includes(`deny network-outbound localhost:${ports.bad} (not approved for this session)`), JSON.stringify(v));
  assert.ok(v.includes(`deny network-outbound localhost:${ports.boom} (permission prompt failed)`), JSON.stringify(v));
});

test('a deny-listed host is never asked', async () => {
  const n = asked.length;
  const cmd = 'curl -s -m 10 -o /dev/null -w "%{http_code}" http://denied.test/';
  const r = await exec(await SandboxManager.wrapWithSandbox(cmd), { shell: '/bin/bash' });
  assert.strictEqual(r.stdout.trim(), '403');
  assert.strictEqual(asked.length, n);
});
