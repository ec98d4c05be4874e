'use strict';
// The reference sandbox runtime's SandboxManager surface, backed by srt.
//
// initialize() starts one `srt-service serve` (one proxy and one violation
// store for every command). wrapWithSandbox() returns a shell command line
// that runs `srt-service run ... -- <shell> -c <command>`: the framework
// spawns it like any command (its pipes, its terminal), and the client
// asks the service to wrap the command, spawns it inside the sandbox and
// exits with its status. The service appends each violation to an events
// file before the command that caused it ends, so the store, read
// synchronously from that file, holds a command's violations as soon as
// the command has exited. When the service dies every running command is
// killed by its client (exit 125) and every new one fails the same way.

const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const KEY_MAX = 100;

class SandboxInitializeConflictError extends Error {
  constructor() {
    super('initialize() is already running with a different configuration or different callbacks: wait for it, or reset() first');
    this.code = 'initialize_conflict';
  }
}

function shQuote(s) {
  s = String(s);
  if (/^[A-Za-z0-9_./:@+,=-]+$/.test(s) && !s.startsWith('=')) return s;
  return "'" + s.replace(/'/g, `'"'"'`) + "'";
}

function which(name) {
  if (name.includes('/')) return fs.existsSync(name) ? path.resolve(name) : null;
  for (const dir of (process.env.PATH || '/usr/bin:/bin').split(':')) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch { /* not here */ }
  }
  return null;
}

function encodeSandboxedCommand(key) {
  return Buffer.from(String(key).slice(0, KEY_MAX), 'utf8').toString('base64');
}

function servicePath() {
  return process.env.SRT_SERVICE || which('srt-service');
}

// Violations, read from the service's events file (JSON lines) whenever the
// store is consulted; the last 100 are kept, totalCount counts them all.
class SandboxViolationStore {
  constructor(eventsFile) {
    this._file = eventsFile || null;
    this._offset = 0;
    this._partial = '';
    this._events = [];
    this._total = 0;
    this._listeners = new Set();
    this._timer = null;
  }

  _sync() {
    if (!this._file) return;
    let fd;
    try {
      fd = fs.openSync(this._file, 'r');
    } catch {
      return;
    }
    let changed = false;
    try {
      const buf = Buffer.alloc(65536);
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, this._offset);
        if (n <= 0) break;
        this._offset += n;
        this._partial += buf.subarray(0, n).toString('utf8');
        let nl;
        while ((nl = this._partial.indexOf('\n')) >= 0) {
          const line = this._partial.slice(0, nl);
          this._partial = this._partial.slice(nl + 1);
          try {
            const e = JSON.parse(line);
            this._add({
              line: String(e.line),
              command: e.command,
              encodedCommand: e.key !== undefined ? encodeSandboxedCommand(e.key) : undefined,
              timestamp: new Date(e.time_ms),
            });
            changed = true;
          } catch { /* a torn line: never, the service writes whole lines */ }
        }
      }
    } finally {
      fs.closeSync(fd);
    }
    if (changed) this._notify();
  }

  _add(event) {
    this._events.push(event);
    if (this._events.length > 100) this._events.shift();
    this._total++;
  }

  _notify() {
    const all = this.getViolations();
    for (const l of this._listeners) l(all);
  }

  addViolation(event) {
    this._add(event);
    this._notify();
  }

  getViolations(limit) {
    this._sync();
    const all = this._events.slice();
    return limit === undefined ? all : all.slice(-limit);
  }

  getCount() {
    this._sync();
    return this._events.length;
  }

  getTotalCount() {
    this._sync();
    return this._total;
  }

  getViolationsForCommand(key) {
    this._sync();
    const enc = encodeSandboxedCommand(key);
    return this._events.filter((e) => e.encodedCommand === enc);
  }

  subscribe(listener) {
    this._listeners.add(listener);
    listener(this.getViolations());
    if (!this._timer && this._file) {
      this._timer = setInterval(() => this._sync(), 250);
      this._timer.unref();
    }
    return () => {
      this._listeners.delete(listener);
      if (!this._listeners.size && this._timer) {
        clearInterval(this._timer);
        this._timer = null;
      }
    };
  }

  clear() {
    this._events = [];
    this._notify();
  }
}

const state = {
  config: undefined,
  service: null, // { child, dir, socket, events }
  store: new SandboxViolationStore(null),
  pending: null,
  pendingArgs: null,
};

// The service asks about a host on neither list with one JSON line on its
// stdout; the answer goes back as one line on its stdin. The callback gets
// {host, port} as the reference's does: true allows, {allow: false,
// reason} denies with the reason, anything else denies, a throw or a
// rejection denies as a failed prompt.
function answerAsk(child, askCallback, q) {
  const reply = (a) => {
    if (child.stdin.writable) child.stdin.write(JSON.stringify({ answer: q.ask, ...a }) + '\n');
  };
  Promise.resolve()
    .then(() => askCallback({ host: q.host, port: q.port }))
    .then((r) => {
      if (r === true) reply({ allow: true });
      else if (r && typeof r === 'object' && r.allow === false && typeof r.reason === 'string') {
        reply({ allow: false, reason: r.reason });
      } else reply({ allow: false });
    }, () => reply({ fail: true }));
}

function startService(config, askCallback) {
  const bin = servicePath();
  if (!bin) {
    return Promise.reject(new Error('Sandbox dependencies not available: srt-service not found (install srt, or set SRT_SERVICE)'));
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'srt-node-'));
  fs.chmodSync(dir, 0o700);
  const settings = path.join(dir, 'settings.json');
  const socket = path.join(dir, 's');
  const events = path.join(dir, 'events.jsonl');
  fs.writeFileSync(settings, JSON.stringify(config), { mode: 0o600 });
  fs.writeFileSync(events, '', { mode: 0o600 });
  const args = ['serve', '--socket', socket, '--settings', settings, '--events', events];
  if (askCallback) args.push('--ask');
  const child = childProcess.spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const fail = (msg) => {
      fs.rmSync(dir, { recursive: true, force: true });
      reject(new Error(msg));
    };
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', (e) => fail(`cannot start srt-service: ${e.message}`));
    child.on('exit', (code) => {
      if (!out.includes('ready\n')) fail((err.trim() || `srt-service exited with status ${code}`));
    });
    let ready = false;
    let pending = '';
    child.stdout.on('data', (d) => {
      if (ready) {
        pending += d;
        let nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          let q;
          try { q = JSON.parse(line); } catch { continue; }
          if (askCallback && q && typeof q.ask === 'number') answerAsk(child, askCallback, q);
        }
        return;
      }
      out += d;
      if (out.includes('ready\n')) {
        ready = true;
        pending = out.slice(out.indexOf('ready\n') + 6);
        // its stdin stays open: it ends when this process does
        child.stdout.unref?.();
        child.stderr.unref?.();
        child.stdin.unref?.();
        child.unref();
        resolve({ child, dir, socket, events, bin });
      }
    });
  });
}

function sameArgs(a, b) {
  return JSON.stringify(a[0]) === JSON.stringify(b[0]) && a[1] === b[1];
}

async function initialize(config, askCallback, enableLogMonitor = false) {
  const args = [config, askCallback];
  if (state.pending) {
    if (sameArgs(state.pendingArgs, args)) return state.pending;
    throw new SandboxInitializeConflictError();
  }
  state.pendingArgs = args;
  state.pending = (async () => {
    if (state.service) await reset();
    const svc = await startService(config, askCallback);
    state.service = svc;
    state.config = structuredClone(config);
    state.store = new SandboxViolationStore(svc.events);
  })();
  try {
    await state.pending;
  } finally {
    state.pending = null;
    state.pendingArgs = null;
  }
  void enableLogMonitor; // the violation monitor is always on in srt
}

function isSupportedPlatform() {
  return process.platform === 'linux';
}

function isSandboxingEnabled() {
  return state.config !== undefined;
}

function requireService() {
  if (!state.service) throw new Error('the sandbox is not initialized: call initialize() first');
  if (state.service.child.exitCode !== null || state.service.child.signalCode !== null) {
    throw new Error('the sandbox service has ended; call reset() and initialize() again');
  }
  return state.service;
}

function ctl(args, input) {
  const svc = requireService();
  const r = childProcess.spawnSync(svc.bin, ['ctl', '--socket', svc.socket, ...args], {
    input: input || '', encoding: 'utf8',
  });
  if (r.status !== 0) {
    throw new Error((r.stderr || '').replace(/^srt: /, '').trim() || `srt-service ctl ${args[0]} failed`);
  }
}

async function wrapWithSandbox(command, binShell, customConfig, abortSignal, options) {
  return wrapSync(command, binShell, customConfig, options);
}

function wrapSync(command, binShell, customConfig, options) {
  const svc = requireService();
  const shellName = binShell || 'bash';
  const shell = which(shellName);
  if (!shell) throw new Error(`Shell '${shellName}' not found in PATH`);
  const key = options && options.commandId ? options.commandId : command;
  const text = options && options.commandText !== undefined ? options.commandText : command;
  const words = [svc.bin, 'run', '--socket', svc.socket, '--id', key, '--text', text];
  if (customConfig && Object.keys(customConfig).length) {
    words.push('--custom', JSON.stringify(customConfig));
  }
  words.push('--', shell, '-c', command);
  return words.map(shQuote).join(' ');
}

function wrapWithSandboxArgv(command, binShell, customConfig, abortSignal, cwd, options) {
  const line = wrapSync(command, binShell, customConfig, options);
  return { argv: [which(binShell || 'bash') || '/bin/bash', '-c', line], env: { ...process.env } };
}

function updateConfig(newConfig) {
  ctl(['update-settings'], JSON.stringify(newConfig));
  state.config = structuredClone(newConfig);
}

function registerCommandNetworkLists(commandId, lists) {
  const domains = (lists && lists.allowedDomains) || [];
  ctl(['set-domains', String(commandId), ...domains]);
}

function unregisterCommandNetworkLists(commandId) {
  try {
    ctl(['set-domains', String(commandId)]);
  } catch { /* absent: nothing to remove */ }
}

function getSandboxViolationStore() {
  return state.store;
}

function annotateStderrWithSandboxFailures(key, stderr) {
  if (!state.config) return stderr;
  const events = state.store.getViolationsForCommand(key);
  if (!events.length) return stderr;
  return stderr + os.EOL + '<sandbox_violations>' + os.EOL +
    events.map((e) => e.line + os.EOL).join('') + '</sandbox_violations>';
}

function getConfig() {
  return state.config;
}

function cleanupAfterCommand() {
  // srt cleans up after each command itself (srt_command_finished)
}

async function reset() {
  const svc = state.service;
  state.service = null;
  state.config = undefined;
  if (!svc) return;
  const { child } = svc;
  if (child.exitCode === null && child.signalCode === null) {
    const done = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 1500);
    await done;
    clearTimeout(t);
  }
  fs.rmSync(svc.dir, { recursive: true, force: true });
}

function checkDependencies() {
  const errors = [];
  if (!servicePath()) errors.push('srt-service not found (install srt, or set SRT_SERVICE)');
  if (!isSupportedPlatform()) errors.push('Unsupported platform');
  return { errors, warnings: [] };
}

const SandboxManager = {
  initialize,
  isSupportedPlatform,
  isSandboxingEnabled,
  checkDependencies,
  checkDependenciesAsync: async (...a) => checkDependencies(...a),
  wrapWithSandbox,
  wrapWithSandboxArgv,
  updateConfig,
  registerCommandNetworkLists,
  unregisterCommandNetworkLists,
  getSandboxViolationStore,
  annotateStderrWithSandboxFailures,
  getConfig,
  cleanupAfterCommand,
  reset,
  askCallbackDenyReason: true,
};

module.exports = {
  SandboxManager,
  SandboxViolationStore,
  SandboxInitializeConflictError,
  encodeSandboxedCommand,
};
