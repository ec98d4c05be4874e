/* The protected names (protected.h): the table and its lookups. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "common/protected.h"

#define F SRT__PROT_FILE
#define D SRT__PROT_DIR
#define S SRT__PROT_SUB
#define H SRT__PROT_HOME
#define G SRT__PROT_GIT

const struct srt__protected srt__protected_names[] = {
	/* shells */
	{ ".bashrc", ".bashrc", F, "bash runs it at every interactive start" },
	{ ".bash_profile", ".bash_profile", F, "bash runs it at login" },
	{ ".bash_login", ".bash_login", F, "bash runs it at login when there is no .bash_profile" },
	{ ".bash_logout", ".bash_logout", F, "bash runs it when a login shell exits" },
	{ ".profile", ".profile", F, "sh and bash run it at login" },
	{ ".zshenv", ".zshenv", F, "zsh runs it at every start, even a script's" },
	{ ".zprofile", ".zprofile", F, "zsh runs it at login" },
	{ ".zshrc", ".zshrc", F, "zsh runs it at every interactive start" },
	{ ".zlogin", ".zlogin", F, "zsh runs it at login" },
	{ ".zlogout", ".zlogout", F, "zsh runs it when a login shell exits" },
	{ ".envrc", ".envrc", F, "direnv runs it when a shell enters the directory" },
	/* git */
	{ ".gitconfig", ".gitconfig", F, "git reads it: it can name programs git runs (core.pager, aliases, filters)" },
	{ ".gitmodules", ".gitmodules", F, "git reads submodule URLs and update commands from it" },
	{ ".git/hooks", ".git/hooks", G, "git runs the hooks in it" },
	{ ".git/config", ".git/config", G, "git reads it: it can name programs git runs (filters, core.fsmonitor); released by filesystem.allowGitConfig" },
	{ "core.hooksPath", "core.hooksPath", G, "git runs the hooks in the directory a repository's core.hooksPath names" },
	{ ".husky", ".husky", D, "husky points core.hooksPath into it: git runs its scripts" },
	{ "~/.config/git/config", ".config/git/config", H, "git reads it as the user's global config: it can name programs git runs" },
	{ "~/.config/git/attributes", ".config/git/attributes", H, "git reads it: attributes select filter and diff drivers that run programs" },
	/* editors and agents */
	{ ".vscode", ".vscode", D, "VS Code reads tasks and settings from it that run programs" },
	{ ".idea", ".idea", D, "JetBrains IDEs read run configurations and tools from it" },
	{ ".claude/commands", ".claude/commands", S, "Claude Code reads commands from it that an agent runs" },
	{ ".claude/agents", ".claude/agents", S, "Claude Code reads agent definitions from it" },
	{ ".claude/settings.json", ".claude/settings.json", S, "Claude Code reads hooks and permissions from it" },
	{ ".claude/settings.local.json", ".claude/settings.local.json", S, "Claude Code reads hooks and permissions from it" },
	{ ".claude/hooks", ".claude/hooks", S, "Claude Code runs the hook scripts kept in it" },
	{ ".mcp.json", ".mcp.json", F, "agents start the MCP servers it names" },
	{ ".ripgreprc", ".ripgreprc", F, "ripgrep reads flags from it (--pre runs a program)" },
	/* package managers */
	{ ".npmrc", ".npmrc", F, "npm reads it: script-shell and node-options name programs npm runs" },
	{ ".yarnrc.yml", ".yarnrc.yml", F, "yarn reads it: yarnPath names the program yarn runs" },
	{ ".yarnrc", ".yarnrc", F, "yarn 1 reads it: yarn-path names the program yarn runs" },
	{ "~/.cargo/config.toml", ".cargo/config.toml", H, "cargo reads it: it can name linkers, runners and rustc wrappers" },
	{ "~/.cargo/config", ".cargo/config", H, "cargo reads it (old name of config.toml)" },
	/* ssh and the session */
	{ "~/.ssh/config", ".ssh/config", H, "ssh reads it: ProxyCommand and LocalCommand run programs" },
	{ "~/.ssh/authorized_keys", ".ssh/authorized_keys", H, "sshd lets in whoever holds a key listed in it" },
	{ "~/.config/systemd/user", ".config/systemd/user", H, "systemd runs the user units kept in it" },
	{ "~/.config/autostart", ".config/autostart", H, "the desktop session starts the programs it lists" },
};

#undef F
#undef D
#undef S
#undef H
#undef G

const size_t srt__protected_count = sizeof(srt__protected_names) / sizeof(srt__protected_names[0]);

const struct srt__protected *srt__protected_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];

		if (!strcasecmp(p->name, name))
			return p;
		if (p->kind == SRT__PROT_HOME && !strcasecmp(p->path, name))
			return p;
	}
	return NULL;
}

int srt__protected_released(const struct srt__protected *p, const char *const *names)
{
	size_t i;

	for (i = 0; names && names[i]; i++)
		if (srt__protected_find(names[i]) == p)
			return 1;
	return 0;
}

/* Does path hold the component sequence pat ("a" or "a/b") as whole
 * components, ending there (whole == 1) or followed by more? */
static int has_components(const char *path, const char *pat, int whole)
{
	size_t n = strlen(pat);
	const char *s;

	for (s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		const char *c = s + 1;

		if (strncasecmp(c, pat, n) != 0)
			continue;
		if (c[n] == '\0' || (!whole && c[n] == '/'))
			return 1;
	}
	return 0;
}

const struct srt__protected *srt__protected_match(const char *path, const char *home)
{
	size_t i, hl = home ? strlen(home) : 0;

	if (!path || path[0] != '/')
		return NULL;
	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];

		switch (p->kind) {
		case SRT__PROT_FILE:
			if (has_components(path, p->path, 1))
				return p;
			break;
		case SRT__PROT_DIR:
		case SRT__PROT_SUB:
			if (has_components(path, p->path, 0))
				return p;
			break;
		case SRT__PROT_GIT:
			if (!strcmp(p->path, ".git/hooks") ? has_components(path, ".git/hooks", 0) :
			    !strcmp(p->path, ".git/config") ? has_components(path, ".git/config", 1) : 0)
				return p;
			break;
		case SRT__PROT_HOME:
			if (hl > 1 && !strncmp(path, home, hl) && path[hl] == '/' &&
			    !strncasecmp(path + hl + 1, p->path, strlen(p->path)) &&
			    (path[hl + 1 + strlen(p->path)] == '\0' || path[hl + 1 + strlen(p->path)] == '/'))
				return p;
			break;
		}
	}
	return NULL;
}
