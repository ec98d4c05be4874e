'use strict';
// The same scenarios through the reference (@anthropic-ai/sandbox-runtime,
// installed from the npm registry into a directory of the test's own) and
// through this package: same exit status class, same output, same network
// violation line. Skips, saying why, when the registry cannot be reached
// or the reference cannot run here.
const test = require('node:test');
const assert = require('node:assert');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ours = require('..');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'srt-node-diff-'));
const config = {
  network: { allowedDomains: [], deniedDomains: ['denied.test'] },
  filesystem: { denyRead: [], allowWrite: [work], denyWrite: [] },
};
const scenarios = [
  { name: 'plain output', cmd: 'echo hello' },
  { name: 'write outside the write roots', cmd: 'echo x > /etc/srt-diff-test 2>/dev/null; echo $?' },
  { name: 'write inside', cmd: 'echo y > inside.txt && cat inside.txt' },
  // the refusal's form differs (srt answers 403 naming the reason): compare
  // the violation, not the HTTP code
  { name: 'denied host', cmd: 'curl -s -m 5 -o /dev/null http://denied.test/; echo done',
    violation: 'deny network-outbound denied.test:80 (host is on the deny list)' },
];

function installReference() {
  const dir = path.join(work, 'ref');
  fs.mkdirSync(dir);
  const r = childProcess.spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir,
    '@anthropic-ai/sandbox-runtime'], { encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) return { skip: `the npm registry cannot be reached or refused the install (${(r.stderr || r.error || '').toString().trim().split('\n').pop()})` };
  try {
    return { mod: require(path.join(dir, 'node_modules', '@anthropic-ai', 'sandbox-runtime')) };
  } catch (e) {
    return { skip: `the installed reference does not load: ${e.message}` };
  }
}

async function runAll(manager) {
  const out = [];
  for (const s of scenarios) {
    const line = await manager.wrapWithSandbox(s.cmd, undefined, undefined, undefined,
      { commandId: `diff-${s.name}` });
    const r = childProcess.spawnSync('/bin/sh', ['-c', line], { cwd: work, encoding: 'utf8', timeout: 60000 });
    const lines = manager.getSandboxViolationStore().getViolationsForCommand(`diff-${s.name}`)
      .map((e) => e.line);
    out.push({ status: r.status === 0, stdout: r.stdout.trim(), lines });
  }
  return out;
}

test('the reference and this package agree on the scenarios', async (t) => {
  const ref = installReference();
  if (ref.skip) {
    t.skip(ref.skip);
    return;
  }
  const R = ref.mod.SandboxManager;
  try {
    await R.initialize(config);
  } catch (e) {
    t.skip(`the reference cannot run here: ${e.message}`);
    return;
  }
  process.chdir(work);
  let theirs;
  try {
    theirs = await runAll(R);
  } finally {
    await R.reset();
  }
  await ours.SandboxManager.initialize(config);
  let mine;
  try {
    mine = await runAll(ours.SandboxManager);
  } finally {
    await ours.SandboxManager.reset();
  }
  scenarios.forEach((s, i) => {
    assert.strictEqual(mine[i].status, theirs[i].status, `${s.name}: exit status`);
    assert.strictEqual(mine[i].stdout, theirs[i].stdout, `${s.name}: output`);
    if (s.violation) {
      assert.ok(mine[i].lines.includes(s.violation), `${s.name}: ours ${JSON.stringify(mine[i].lines)}`);
      // the reference's network goes through socat bridges inside the
      // sandbox; where they do not come up, its proxy never sees the
      // request and there is nothing to compare
      if (theirs[i].lines.length) {
        assert.ok(theirs[i].lines.includes(s.violation), `${s.name}: reference ${JSON.stringify(theirs[i].lines)}`);
      } else {
        t.diagnostic(`${s.name}: the reference recorded nothing (its proxy bridge did not carry the request here); only srt's line was checked`);
      }
    }
  });
});

test.after(() => fs.rmSync(work, { recursive: true, force: true }));
