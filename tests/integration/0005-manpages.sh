#!/bin/bash
# The manual pages cannot drift from the program: every key srt-settings(5)
# documents is one the validator knows (its example, put in a settings file,
# is not reported as an unknown key, while a made-up key beside it is), every
# key the validator's key lists name is documented, every option and the
# subcommand of `srt --help` appear in srt(1), and man renders each page
# without a warning.
. "$(dirname "$0")/lib.sh"

MANDIR="$top_srcdir/doc/man"
PAGES="srt.1 srt-settings.5 srt-modules.7"

if ! command -v man >/dev/null || ! command -v python3 >/dev/null; then
	skip "man or python3 is missing"
	echo "1..$_tap_n"; exit 0
fi
render() { MANWIDTH=${2:-80} man -l "$MANDIR/$1" 2>/dev/null | col -b; }

for p in $PAGES; do
	w=$(LC_ALL=C.UTF-8 man --warnings -l "$MANDIR/$p" 2>&1 >/dev/null)
	check "$p renders without warnings${w:+ ($w)}" test -z "$w"
done

# srt(1) names every option and the subcommand of the usage text
page=$(render srt.1 1000)
opts=$("$SRT" --help | grep -oE '(^|[ ,])--?[a-zA-Z][-a-zA-Z]*' | sed 's/^[ ,]*//' | sort -u)
for o in $opts doctor; do
	case $page in *"$o"*) ok "srt.1 documents $o" ;; *) not_ok "srt.1 documents $o" ;; esac
done
for s in "EXIT STATUS" ENVIRONMENT FILES EXAMPLES; do
	case $page in *"$s"*) ok "srt.1 has a section $s" ;; *) not_ok "srt.1 has a section $s" ;; esac
done

# srt-settings(5): "key" lines (a .TP tag) each followed by "Example: value"
render srt-settings.5 1000 | python3 -c '
import re, sys
key = None
for line in sys.stdin:
    m = re.match(r"^ {7}([A-Za-z][A-Za-z0-9]*(?:(?:\.|\[\]\.)[A-Za-z][A-Za-z0-9]*)*)\s*$", line)
    if m:
        key = m.group(1)
        continue
    m = re.match(r"^\s+Example: (.*?)\s*$", line)
    if m and key:
        print(key + "\t" + m.group(1))
        key = None
' >"$WORK/documented"
n=$(wc -l <"$WORK/documented")
check "srt-settings.5 documents keys with examples ($n)" test "$n" -ge 50

# One settings file per object that holds documented keys: the required
# sections, every documented key of that object with its example (so the
# keys that need each other are there together), and a made-up key beside
# them. A key is known when the made-up key is reported (as unknown, or as
# unrecognised in a strict section) and the key is not, or when srt's error
# is about the key itself (a value refused on purpose, like
# network.filterRequest; the file is then tried again without it): a
# section the validator never looks into cannot pass unnoticed.
python3 - "$WORK/documented" "$WORK" "$SRT" "$BACKEND" <<'PY' >"$WORK/verdicts"
import json, re, subprocess, sys
documented, work, srt, backend = sys.argv[1:5]

def base():
    return {"network": {"allowedDomains": ["api.github.com"], "deniedDomains": []},
            "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}

def put(doc, key, example):
    try:
        value = json.loads(example)
    except ValueError:
        value = example
    parts = key.split(".")
    node = doc
    for p in parts[:-1]:
        if p.endswith("[]"):
            p = p[:-2]
            if not isinstance(node.get(p), list):
                node[p] = [{}]
            node = node[p][0]
        else:
            if not isinstance(node.get(p), dict):
                node[p] = {}
            node = node[p]
    node[parts[-1]] = value
    return node

def run(members):
    doc = base()
    node = None
    # masking without tlsTerminate must be opted into
    if members[0][0].startswith("credentials."):
        doc["credentials"] = {"allowPlaintextInject": True}
    for key, example in members:
        node = put(doc, key, example)
    node["zzManpageProbe"] = 1
    path = work + "/k.json"
    json.dump(doc, open(path, "w"))
    try:
        r = subprocess.run(["timeout", "-k", "5", "20", srt, "--backend=" + backend,
                            "--explain", "-s", path, "-c", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
        return r.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "(timed out)"

groups = {}
for line in open(documented):
    key, example = line.rstrip("\n").split("\t", 1)
    groups.setdefault(key.rsplit(".", 1)[0] if "." in key else "", []).append((key, example))
for parent, members in sorted(groups.items()):
    refused = []
    while members:
        err = run(members)
        # an error about one of the keys itself (a value refused on purpose,
        # or one that needs another section): the validator knows that key;
        # try the others without it
        m = re.search(r"\.json: ([^ ]+): ", err)
        hit = None
        if m and "zzManpageProbe" not in err:
            at = m.group(1)
            for key, example in members:
                kp = key.replace("[]", "[0]")
                if at == kp or at.startswith(kp + "[") or at.startswith(kp + "."):
                    hit = key
        if not hit:
            break
        refused.append(hit)
        members = [(k, e) for k, e in members if k != hit]
    for key in refused:
        print("ok\tsettings key %s is known to the validator (its example is refused by name)" % key)
    probe = "zzManpageProbe" in err
    for key, example in members:
        leaf = key.rsplit(".", 1)[-1].replace("[]", "")
        kp = key.replace("[]", "[0]")
        if ('unknown key "%s"' % kp) in err or re.search(r"Unrecognized key\(s\) in object: .*'%s'" % re.escape(leaf), err):
            print("not ok\tsettings key %s (documented) is unknown to the validator: %s" % (key, err[:300].replace("\n", " ")))
        elif probe:
            print("ok\tsettings key %s is known to the validator" % key)
        else:
            print("not ok\tsettings key %s: the validator did not reach it (no word about a made-up key beside it): %s" % (key, err[:300].replace("\n", " ")))
PY
while IFS=$'\t' read -r verdict what; do
	if [ "$verdict" = ok ]; then ok "$what"; else not_ok "$what"; fi
done <"$WORK/verdicts"

# every key in the validator's key lists (the static keys[] arrays its
# check_members() calls take) is documented, as a part of a documented key
src="$top_srcdir/libsrt/settings-sections.c"
vkeys=$(awk '/keys\[\] = \{/ { on = 1 } on { print } on && /\};/ { on = 0 }' "$src" 2>/dev/null | grep -oE '"[A-Za-z][A-Za-z0-9]*"' | tr -d '"' | sort -u)
if [ -z "$vkeys" ]; then
	skip "no key lists (static ... keys[] = { ... }) found in libsrt/settings-sections.c: update this test"
else
	cut -f1 "$WORK/documented" | tr '.' '\n' | sed 's/\[\]$//' | sort -u >"$WORK/parts"
	missing=$(echo "$vkeys" | comm -23 - "$WORK/parts" | tr '\n' ' ')
	check "every key the validator lists is in srt-settings.5${missing:+ (missing: $missing)}" test -z "$missing"
fi
echo "1..$_tap_n"
