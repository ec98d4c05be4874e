// Writes the reference implementation's macOS profile for every case of
// cases.txt: node reference-profiles.mjs <package dir> <cases.txt> <root> <out dir>
// It calls the package's wrapCommandWithSandboxMacOS (which runs on any
// system: it only builds a command line) and keeps the profile argument.
import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { execFileSync } from 'child_process';

const [pkg, casesFile, root, outDir] = process.argv.slice(2);
const mod = await import(pathToFileURL(path.join(pkg, 'dist/sandbox/macos-sandbox-utils.js')).href);
const at = p => (p.startsWith('@') ? root + p.slice(1) : p);
const cases = [];
for (const line of fs.readFileSync(casesFile, 'utf8').split('\n')) {
  if (!line || line.startsWith('#')) continue;
  const [key, ...rest] = line.split(' ');
  const val = rest.join(' ');
  if (key === 'case') cases.push({ name: val, dr: [], ar: [], aw: [], dw: [], gitcfg: false });
  else if (key === 'gitcfg') cases[cases.length - 1].gitcfg = true;
  else cases[cases.length - 1][key].push(at(val));
}
fs.mkdirSync(path.join(root, 'proj'), { recursive: true });
process.chdir(path.join(root, 'proj'));
for (const c of cases) {
  const wrapped = mod.wrapCommandWithSandboxMacOS({
    command: 'true',
    needsNetworkRestriction: true,
    readConfig: c.dr.length || c.ar.length ? { denyOnly: c.dr, allowWithinDeny: c.ar } : undefined,
    writeConfig: { allowOnly: c.aw, denyWithinAllow: c.dw },
    allowGitConfig: c.gitcfg,
    binShell: 'sh',
  });
  if (!wrapped.startsWith('env ')) throw new Error(`case ${c.name}: not wrapped: ${wrapped.slice(0, 200)}`);
  // the shell reads the words back: the word after -p is the profile
  const profile = execFileSync('/bin/sh', ['-c',
    'f() { for a; do if [ "$p" = 1 ]; then printf %s "$a"; exit 0; fi; [ "$a" = -p ] && p=1; done; exit 1; }; f ' +
    wrapped.slice(4)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  fs.writeFileSync(path.join(outDir, `${c.name}.sb`), profile);
}
console.log(`${cases.length} reference profiles written`);
