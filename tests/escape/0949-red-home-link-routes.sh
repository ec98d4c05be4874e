#!/bin/bash
# Escape class F6 (a protected name at a second path), both Linux
# backends: more ways through the links that lead to $HOME's protected
# names (red team, after 0943). Each write must stay off the host, with or
# without the run being refused.
#  1-2  ~/.bashrc is a link to a file outside the write root, and the write
#       root holds a hard link of that file: the hard link is the file bash
#       runs (the hard-link search looked at the link, not at its target).
#  3-4  ~/.config leads through a name that does not exist and then "..":
#       the kernel needs the name, so the command decides where ~/.config
#       goes by making it (a link), but srt placed ~/.config as if the
#       name and its ".." cancelled.
#  5-8  $HOME itself is a link into the write root: its names under their
#       real path are $HOME's (~/.ssh/config, a systemd user unit).
#  9-12 $HOME is reached through a link in the write root: the command
#       points it at a directory of its own, with a ~/.config/git/config
#       that git reads after the run.
# 13-16 a hard link in the write root of a file in one of $HOME's protected
#       directories (the hard-link search took $HOME's protected files,
#       not the files of its protected directories).
# 17-20 the hooks directory core.hooksPath names in $HOME's git
#       configuration, in the write root: looked for only with $HOME in
#       that root, and not through a linked configuration file.
# 21-22 a relative core.hooksPath in ~/.gitconfig: a directory in each
#       repository, the write root's included.
# 23-26 $HOME spelled with ".." after a link: its names were held where the
#       spelling says, not where the kernel goes.
# 27-28 a hard link of ~/.claude/settings.json (a name inside a directory).
# 29-30 more files with other links in ~/.claude/commands than the search
#       keeps (1,024): the ones past the table had their other names left
#       writable; now the run is refused.
. "$(dirname "$0")/lib.sh"
need_bwrap
LL=$BACKEND_LL
S=$(fsjson routes '{"denyRead":[],"allowWrite":["."],"denyWrite":[]}')
P="$WORK/proj"

run_in() { # DIR SRT-BACKEND ATTACK [HOME]
	( cd "$1" && HOME=${4:-$HOME} timeout -k 5 60 "$SRT" --backend="$2" -s "$S" -c "$3" ) >"$WORK/out" 2>&1
	what=$(tr '\n' ' ' < "$WORK/out" | head -c 300)
}

for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$WORK/dots" "$HOME/.bashrc" "$P/hl"
	mkdir -p "$WORK/dots"
	echo orig > "$WORK/dots/bashrc"
	ln -s "$WORK/dots/bashrc" "$HOME/.bashrc"
	ln "$WORK/dots/bashrc" "$P/hl"
	run_in "$P" "${be#*:}" 'echo PWNED >> hl; echo ran'
	attempt F6 "${be%%:*}: a hard link of the file ~/.bashrc links to is not written ($what)" \
		sh -c "! grep -q PWNED '$WORK/dots/bashrc'"
done
rm -f "$HOME/.bashrc" "$P/hl"

for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$P/dots" "$P/other" "$HOME/.config"
	mkdir -p "$P/dots/config"
	ln -s "$P/dots/missing/../config" "$HOME/.config"
	run_in "$P" "${be#*:}" 'mkdir -p other/x other/config/systemd/user &&
echo PWNED > other/config/systemd/user/x.service; ln -s ../other/x dots/missing; echo ran'
	attempt F6 "${be%%:*}: no systemd user unit through ~/.config, a link through a missing name and .. ($what)" \
		test ! -e "$HOME/.config/systemd/user/x.service"
done
rm -rf "$P/dots" "$P/other" "$HOME/.config"

H="$WORK/home-link"
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$P/u" "$H"
	mkdir -p "$P/u/.ssh"
	ln -s "$P/u" "$H"
	run_in "$P" "${be#*:}" 'echo PWNED > u/.ssh/config; mkdir -p u/.config/systemd/user &&
echo PWNED > u/.config/systemd/user/x.service; echo ran' "$H"
	attempt F6 "${be%%:*}: ~/.ssh/config not made where \$HOME, a link into the write root, leads ($what)" \
		test ! -e "$P/u/.ssh/config"
	attempt F6 "${be%%:*}: no systemd user unit where \$HOME, a link into the write root, leads ($what)" \
		test ! -e "$P/u/.config/systemd/user/x.service"
done
rm -rf "$P/u" "$H"

H="$P/hl"
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$P/evil" "$H" "$WORK/real-home"
	mkdir -p "$WORK/real-home/.ssh"
	ln -s "$WORK/real-home" "$H"
	run_in "$P" "${be#*:}" 'mkdir -p evil/.config/git && echo PWNED > evil/.config/git/config;
rm -f hl; ln -s evil hl; echo ran' "$H"
	attempt F6 "${be%%:*}: \$HOME, a link in the write root, still leads to the real home ($what)" \
		test "$(readlink "$H")" = "$WORK/real-home"
	attempt F6 "${be%%:*}: no ~/.config/git/config of the command's making through \$HOME's link ($what)" \
		sh -c "! grep -qs PWNED '$H/.config/git/config'"
done
rm -rf "$P/evil" "$H" "$WORK/real-home"

# 13-16: a hard link in the write root of a file inside one of $HOME's
# protected directories: a systemd user unit, a Claude Code command
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$HOME/.config" "$HOME/.claude" "$P/app.service" "$P/x.md"
	mkdir -p "$HOME/.config/systemd/user" "$HOME/.claude/commands"
	echo orig > "$HOME/.config/systemd/user/app.service"
	echo orig > "$HOME/.claude/commands/x.md"
	ln "$HOME/.config/systemd/user/app.service" "$P/app.service"
	ln "$HOME/.claude/commands/x.md" "$P/x.md"
	run_in "$P" "${be#*:}" 'echo PWNED >> app.service; echo PWNED >> x.md; echo ran'
	attempt F6 "${be%%:*}: a hard link of a systemd user unit is not written ($what)" \
		sh -c "! grep -q PWNED '$HOME/.config/systemd/user/app.service'"
	attempt F6 "${be%%:*}: a hard link of a ~/.claude/commands file is not written ($what)" \
		sh -c "! grep -q PWNED '$HOME/.claude/commands/x.md'"
done
rm -rf "$HOME/.config" "$HOME/.claude" "$P/app.service" "$P/x.md"

# 17-20: the hooks directory $HOME's git configuration names
# (core.hooksPath) in the write root, $HOME not being one: named by a plain
# ~/.gitconfig, and by ~/.config/git/config, a dotfile manager's link into
# the write root
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$HOME/.gitconfig" "$HOME/.config" "$P/hooks" "$P/hooks2" "$P/dots"
	mkdir -p "$P/hooks" "$P/dots" "$HOME/.config/git"
	printf '[core]\n\thooksPath = %s\n' "$P/hooks" > "$HOME/.gitconfig"
	printf '[core]\n\thooksPath = %s\n' "$P/hooks2" > "$P/dots/gitcfg"
	ln -s "$P/dots/gitcfg" "$HOME/.config/git/config"
	run_in "$P" "${be#*:}" 'echo PWNED > hooks/pre-commit; mkdir -p hooks2 && echo PWNED > hooks2/pre-commit; echo ran'
	attempt F6 "${be%%:*}: no hook in the directory ~/.gitconfig's core.hooksPath names ($what)" \
		test ! -e "$P/hooks/pre-commit"
	attempt F6 "${be%%:*}: no hook in the directory a linked ~/.config/git/config's core.hooksPath names ($what)" \
		test ! -e "$P/hooks2/pre-commit"
done
rm -rf "$HOME/.gitconfig" "$HOME/.config" "$P/hooks" "$P/hooks2" "$P/dots"

# 21-22: a relative core.hooksPath in ~/.gitconfig (".githooks") names a
# directory in every repository: the write root's own
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$P/.git" "$P/.githooks"
	mkdir -p "$P/.git/objects" "$P/.git/refs"
	echo 'ref: refs/heads/main' > "$P/.git/HEAD"
	printf '[core]\n\tbare = false\n' > "$P/.git/config"
	printf '[core]\n\thooksPath = .githooks\n' > "$HOME/.gitconfig"
	run_in "$P" "${be#*:}" 'mkdir -p .githooks && echo PWNED > .githooks/pre-commit; echo ran'
	attempt F6 "${be%%:*}: no hook in the repository's directory a relative core.hooksPath in ~/.gitconfig names ($what)" \
		test ! -e "$P/.githooks/pre-commit"
done
rm -rf "$HOME/.gitconfig" "$P/.git" "$P/.githooks"

# 23-26: $HOME spelled with ".." after a link ("$WORK/lnk/../home", lnk a
# link to a directory of the write root): the kernel goes up from the
# link's target, into the write root
H="$WORK/lnk/../home"
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$P/sub" "$P/home" "$WORK/lnk"
	mkdir -p "$P/sub" "$P/home/.ssh"
	ln -s "$P/sub" "$WORK/lnk"
	run_in "$P" "${be#*:}" 'echo PWNED > home/.ssh/config; mkdir -p home/.config/systemd/user &&
echo PWNED > home/.config/systemd/user/x.service; echo ran' "$H"
	attempt F6 "${be%%:*}: ~/.ssh/config not made where \$HOME with a .. after a link leads ($what)" \
		test ! -e "$P/home/.ssh/config"
	attempt F6 "${be%%:*}: no systemd user unit where \$HOME with a .. after a link leads ($what)" \
		test ! -e "$P/home/.config/systemd/user/x.service"
done
rm -rf "$P/sub" "$P/home" "$WORK/lnk"

# 27-28: a hard link in the write root of ~/.claude/settings.json (a name
# inside a directory, which the hard-link search left out)
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$HOME/.claude" "$P/sj"
	mkdir -p "$HOME/.claude"
	echo '{}' > "$HOME/.claude/settings.json"
	ln "$HOME/.claude/settings.json" "$P/sj"
	run_in "$P" "${be#*:}" 'echo PWNED >> sj; echo ran'
	attempt F6 "${be%%:*}: a hard link of ~/.claude/settings.json is not written ($what)" \
		sh -c "! grep -q PWNED '$HOME/.claude/settings.json'"
done
rm -rf "$HOME/.claude" "$P/sj"

# 29-30: 1,100 files of ~/.claude/commands, each with a hard link in the
# write root: the table of files to cover keeps 1,024, so the rest were
# dropped without a word and their links stayed writable
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	rm -rf "$HOME/.claude" "$P/links"
	mkdir -p "$HOME/.claude/commands" "$P/links"
	# the files written by the shell, the links made by one ln
	(cd "$HOME/.claude/commands" && for i in $(seq 1100); do echo x > "c$i.md"; done &&
		ln -- c*.md "$P/links/")
	run_in "$P" "${be#*:}" 'for f in links/*; do echo PWNED >> "$f"; done 2>/dev/null; echo ran'
	attempt F6 "${be%%:*}: past 1,024 files with other links, no hard link is written ($what)" \
		sh -c "! grep -lq PWNED '$HOME/.claude/commands/'*"
done
rm -rf "$HOME/.claude" "$P/links"
echo "1..$_tap_n"
