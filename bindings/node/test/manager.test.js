'use strict';
// The Node package against this build's srt-service (SRT_SERVICE) and
// backends (SRT_BACKEND_DIR). Run with: node --test test/
const test = require('node:test');
const assert = require('node:assert');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { SandboxManager } = require('..');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'srt-node-test-'));
fs.chmodSync(work, 0o755);
process.chdir(work);

const config = {
  network: { allowedDomains: [], deniedDomains: ['denied.test'] },
  filesystem: { denyRead: [path.join(work, 'secret')], allowWrite: [work], denyWrite: [] },
};

function sh(line, opts = {}) {
  return childProcess.spawnSync('/bin/sh', ['-c', line], { encoding: 'utf8', ...opts });
}

test.before(async () => {
  fs.writeFileSync(path.join(work, 'secret'), 'CANARY');
  await SandboxManager.initialize(config);
});

test.after(async () => {
  await SandboxManager.reset();
  fs.rmSync(work, { recursive: true, force: true });
});

test('a wrapped command runs sandboxed and its violations are its own', async () => {
  assert.strictEqual(SandboxManager.isSandboxingEnabled(), true);
  const cmd = 'cat secret; echo ok > out.txt; echo no > /etc/srt-node-test';
  const line = await SandboxManager.wrapWithSandbox(cmd);
  const r = sh(line);
  assert.ok(!r.stdout.includes('CANARY'));
  assert.strictEqual(fs.readFileSync(path.join(work, 'out.txt'), 'utf8'), 'ok\n');
  assert.ok(!fs.existsSync('/etc/srt-node-test'));
  const v = SandboxManager.getSandboxViolationStore().getViolationsForCommand(cmd);
  assert.ok(v.some((e) => e.line.includes('/etc/srt-node-test')), JSON.stringify(v));
  assert.ok(v.every((e) => e.timestamp instanceof Date));
  const annotated = SandboxManager.annotateStderrWithSandboxFailures(cmd, r.stderr);
  assert.ok(annotated.startsWith(r.stderr + '\n<sandbox_violations>\n'), annotated);
  assert.ok(annotated.endsWith('</sandbox_violations>'));
  assert.strictEqual(SandboxManager.annotateStderrWithSandboxFailures('no such command', 'e'), 'e');
});

test('200 sequential commands in one sandbox, each attributed', async () => {
  const store = SandboxManager.getSandboxViolationStore();
  const total0 = store.getTotalCount();
  let bad = 0;
  for (let i = 0; i < 200; i++) {
    const id = `node-command-number-${String(i).padStart(3, '0')}`;
    const cmd = i % 3 === 0 ? `echo x > /etc/srt-node-${i}; true` : `echo ${i} > n.txt`;
    if (i % 3 === 0) bad++;
    const line = await SandboxManager.wrapWithSandbox(cmd, undefined, undefined, undefined,
      { commandId: id });
    const r = sh(line);
    assert.strictEqual(r.status, 0, `${i}: ${r.stderr}`);
    const lines = store.getViolationsForCommand(id).map((e) => e.line);
    if (i % 3 === 0) {
      assert.ok(lines.length > 0 && lines.every((l) => l.includes(`/etc/srt-node-${i}`)),
        `${i}: ${JSON.stringify(lines)}`);
    } else {
      assert.deepStrictEqual(lines, [], `${i}`);
    }
  }
  assert.ok(store.getTotalCount() - total0 >= bad);
});

test('a denied host is recorded for the command that asked', async () => {
  const cmd = 'curl -s -m 5 http://denied.test/ ; true';
  const r = sh(await SandboxManager.wrapWithSandbox(cmd));
  assert.strictEqual(r.status, 0);
  const lines = SandboxManager.getSandboxViolationStore().getViolationsForCommand(cmd)
    .map((e) => e.line);
  assert.ok(lines.includes('deny network-outbound denied.test:80 (host is on the deny list)'),
    JSON.stringify(lines));
});

test('wrapWithSandboxArgv gives an argv that runs the command', () => {
  const { argv, env } = SandboxManager.wrapWithSandboxArgv('echo $SANDBOX_RUNTIME');
  const r = childProcess.spawnSync(argv[0], argv.slice(1), { env, encoding: 'utf8' });
  assert.strictEqual(r.stdout, '1\n');
});

test('customConfig replaces the write list for one command', async () => {
  const line = await SandboxManager.wrapWithSandbox('echo a > custom.txt', undefined,
    { filesystem: { allowWrite: [] } });
  const r = sh(line);
  assert.notStrictEqual(r.status, 0);
  assert.ok(!fs.existsSync(path.join(work, 'custom.txt')));
});

test('updateConfig: invalid is refused and changes nothing; valid applies', () => {
  assert.throws(() => SandboxManager.updateConfig({ network: { allowedDomains: 'x' } }),
    /allowedDomains/);
  assert.deepStrictEqual(SandboxManager.getConfig(), config);
  const next = structuredClone(config);
  next.network.deniedDomains.push('also-denied.test');
  SandboxManager.updateConfig(next);
  assert.deepStrictEqual(SandboxManager.getConfig().network.deniedDomains,
    ['denied.test', 'also-denied.test']);
});

test('registerCommandNetworkLists validates the id', () => {
  assert.throws(() => SandboxManager.registerCommandNetworkLists('short', { allowedDomains: ['a.test'] }));
  SandboxManager.registerCommandNetworkLists('a-command-id-long-enough-000', { allowedDomains: ['a.test'] });
  SandboxManager.unregisterCommandNetworkLists('a-command-id-long-enough-000');
});

test('when the service dies, the running command is killed and new ones fail', async () => {
  const line = await SandboxManager.wrapWithSandbox(
    'echo "$TMPDIR" > tmpdir.txt; sleep 30; echo survived > survived.txt');
  const p = childProcess.spawn('/bin/sh', ['-c', line], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => { err += d; });
  await new Promise((r) => setTimeout(r, 1500));
  const svcPid = childProcess.spawnSync('pgrep', ['-f', 'srt-service serve'], { encoding: 'utf8' });
  assert.ok(svcPid.status === 0, 'service running');
  // the service of this process: the one whose socket is in our state
  const ours = svcPid.stdout.trim().split('\n').map(Number).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(os.tmpdir());
    } catch { return false; }
  });
  const before = line.match(/--socket '?([^' ]+)/)[1];
  const mine = ours.filter((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(before));
  // the service itself (this process started it), not the cleanup guard it
  // forked for this command (a copy of it, with the same command line, left
  // to init), which is what removes the service's TMPDIR once it is gone
  const parent = (pid) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '').split(' ')[1]);
  const service = mine.filter((pid) => parent(pid) === process.pid);
  assert.strictEqual(service.length, 1, `service processes: ${mine.join(' ')}`);
  const tmpdir = fs.readFileSync(path.join(work, 'tmpdir.txt'), 'utf8').trim();
  assert.match(tmpdir, /^\/tmp\/claude[^/]*\/srt-run\./);
  assert.ok(fs.existsSync(tmpdir), tmpdir);
  process.kill(service[0], 'SIGKILL');
  // 'close', not 'exit': node reports the exit before it has read the last
  // of stderr, and the message is what this test checks
  const code = await new Promise((r) => p.on('close', (c) => r(c)));
  assert.strictEqual(code, 125, err);
  assert.match(err, /sandbox service/);
  assert.ok(!fs.existsSync(path.join(work, 'survived.txt')));
  // the guard removes the service's TMPDIR once the sandbox is gone
  for (let i = 0; i < 50 && fs.existsSync(tmpdir); i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.ok(!fs.existsSync(tmpdir), `${tmpdir} left after the service was killed`);
  await new Promise((r) => setTimeout(r, 200));
  assert.throws(() => SandboxManager.wrapWithSandboxArgv('true'), /service has ended/);
});
