#!/bin/bash
# Escape class: reading a denied secret by every
# spelling, tool and side door we could think of. Each attempt's output
# lands in its own file; the canary strings must be absent from all of them
# and the canary unchanged on the host.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")

# one sandbox run, many attempts: "name|shell" lines; each attempt's stdout
# and stderr go to $P/o.<name>
run_batch() { # run_batch SETTINGS CLASS < attempts
	local s=$1 cls=$2 script="$WORK/batch.sh" name cmd
	: > "$script"
	while IFS='|' read -r name cmd; do
		[ -n "$name" ] || continue
		printf '( %s ) > %q 2>&1 </dev/null\n' "$cmd" "$P/o.$name" >> "$script"
		echo "$name" >> "$WORK/names.$cls"
	done
	srt__run -s "$s" -- /bin/bash "$script" >/dev/null 2>&1
	while read -r name; do
		if [ -e "$P/o.$name" ]; then
			attempt "$cls" "$name: no canary in the output" no_leak "$P/o.$name"
		else
			not_ok "$cls $name: the attempt did not run (no output file)"
		fi
	done < "$WORK/names.$cls"
}

run_batch "$S" F1 <<'EOF2'
plain|cat ~/.ssh/id_canary
double-slash|cat $HOME//.ssh///id_canary
dot-dot|cat $HOME/./.ssh/../.ssh/./id_canary
proc-self-root|cat /proc/self/root$HOME/.ssh/id_canary
proc-1-root|cat /proc/1/root$HOME/.ssh/id_canary
proc-self-cwd|cd $HOME && cat /proc/self/cwd/.ssh/id_canary
cd-into|cd ~/.ssh && cat id_canary; cat ./*
glob|cat ~/.ssh/* ~/.ss?/id* ~/.aws/*
find-exec|find ~/.ssh ~/.aws -type f -exec cat {} +
grep-home|grep -r CANARY ~ 2>/dev/null | grep -v '^.*/proj/'
tar|tar -C ~ -cf - .ssh .aws | tar -xOf -
dd|dd if=$HOME/.ssh/id_canary status=none
python-open|/usr/bin/python3 -c 'import os,sys; [sys.stdout.write(open(p).read()) for p in (os.path.expanduser("~/.ssh/id_canary"), os.path.expanduser("~/.aws/credentials"))]'
o-path-fd|/usr/bin/python3 -c 'import os; fd=os.open(os.path.expanduser("~/.ssh/id_canary"), os.O_PATH); print(open("/proc/self/fd/%d" % fd).read())'
openat-dirfd|/usr/bin/python3 -c 'import os; d=os.open(os.path.expanduser("~"), os.O_RDONLY); print(open(os.open(".ssh/id_canary", os.O_RDONLY, dir_fd=d)).read())'
copy-out|cp -r ~/.ssh ./copied-ssh; cp -r ~/.aws ./copied-aws; cat copied-ssh/* copied-aws/*
block-device|for d in /dev/sd? /dev/vd? /dev/nvme?n? /dev/xvd? /dev/dm-? /dev/loop?; do [ -e $d ] && grep -a -m1 CANARY $d; done; ls /dev
mknod-block|mknod ./blk b 254 0 && grep -a -m1 CANARY ./blk; mknod ./blk2 b 8 0 && grep -a -m1 CANARY ./blk2
mem-devices|cat /dev/mem /dev/kmem /dev/port 2>&1 | head -c 200
sys-block|ls /sys/block; cat /sys/block/*/dev
EOF2
attempt F1 "copy-out: nothing of the secrets copied to the host" \
	sh -c "! grep -rqs -e '$CANARY' -e 'CANARY-AWS-$$' '$P/copied-ssh' '$P/copied-aws'"
attempt F1 "mknod: no device node left on the host" test ! -e "$P/blk" -a ! -e "$P/blk2"
attempt F1 "the canary is unchanged on the host" canary_intact

# F2: a single-file deny inside an allowed directory, and F3: inside a
# deny-write directory
mkdir -p "$P/sub" "$P/secrets"
echo "$CANARY" > "$P/secret.txt"
echo "$CANARY" > "$P/secrets/f"
F2=$(fsjson f2 '{"denyRead":["~/.ssh","./secret.txt","./secrets/f"],"allowRead":["."],"allowWrite":["."],"denyWrite":["./secrets"]}')
run_batch "$F2" F2 <<'EOF2'
direct|cat secret.txt
sub-dot-dot|cat sub/../secret.txt
absolute|cat "$PWD/secret.txt"
proc-cwd|cat /proc/self/cwd/secret.txt
symlink-inside|ln -s secret.txt l1 && cat l1; ln -s "$PWD/secret.txt" sub/l2 && cat sub/l2
hardlink-inside|ln secret.txt h1 && cat h1
copy|cp secret.txt c1; cat c1
rename-parent|mv sub sub2; mv "$PWD" "$PWD.moved"; cat ../proj.moved/secret.txt
f3-direct|cat secrets/f
f3-replace-parent|mv secrets secrets.old && mkdir secrets && cat secrets.old/f
f3-symlink|ln -s secrets/f l3 && cat l3
EOF2
# (symlinks made inside point back at the denied name: harmless on the host)
attempt F2 "no hard link or copy of the secret left on the host" \
	sh -c "! grep -qs '$CANARY' '$P/h1' '$P/c1'"
attempt F3 "secrets/ still in place on the host" test -f "$P/secrets/f" -a ! -e "$P/secrets.old"

# F10: symlinks planted on the host in the project before the run
ln -s "$HOME/.ssh/id_canary" "$P/abs-link"
ln -s ../home/.ssh/id_canary "$P/rel-link"
ln -s "$HOME" "$P/home-link"
ln -s "$P/abs-link" "$P/chain-link"
ln -s "/proc/self/root$HOME/.ssh" "$P/proc-link"
ln -s "$HOME/.ssh" "$WORK/dir-link"
run_batch "$S" F10 <<EOF2
absolute|cat abs-link
relative|cat rel-link
ancestor|cat home-link/.ssh/id_canary
chain|cat chain-link
via-proc|cat proc-link/id_canary
outside-dir-link|cat $WORK/dir-link/id_canary
made-inside|ln -s ~/.ssh/id_canary in-l && cat in-l; ln -s ~ in-h && cat in-h/.ssh/id_canary
tmpdir-link|ln -s ~/.ssh "\$TMPDIR/x-\$\$" && cat "\$TMPDIR/x-\$\$/id_canary"; rm -f "\$TMPDIR/x-\$\$"
readlink-f|cat "\$(readlink -f abs-link)"
EOF2
attempt F10 "the canary is unchanged on the host" canary_intact

echo "1..$_tap_n"
