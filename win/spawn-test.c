/* Drives windows_wfp.dll's process slots (spawn, wait_proc, end_proc) the
 * way the core calls them, for win/test.sh under Wine: the module is
 * loaded from beside this program with LoadLibrary and its one exported
 * symbol, exactly as the loader finds it. The command it spawns is this
 * program again in a child role, so nothing else is needed on the
 * machine. Prints one line per check; exit 0 when the check holds.
 *
 *   spawn-test header        the module's ABI and its process slots
 *   spawn-test exit N        a spawned command's exit code comes back
 *   spawn-test env           the command gets exactly the environment given
 *   spawn-test tree DIR      end_proc ends a grandchild too
 *   spawn-test orphan DIR    killing the spawning process ends the tree */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <srt/backend.h>

static const struct srt_backend *be;
static char self[MAX_PATH];

static int load(void)
{
	char path[MAX_PATH], *slash;
	HMODULE m;

	if (!GetModuleFileNameA(NULL, self, sizeof(self)))
		return -1;
	strcpy(path, self);
	if (!(slash = strrchr(path, '\\')) || strlen(path) + 20 > sizeof(path))
		return -1;
	strcpy(slash + 1, "windows_wfp.dll");
	if (!(m = LoadLibraryA(path))) {
		printf("LoadLibrary %s failed (error %lu)\n", path, GetLastError());
		return -1;
	}
	be = (const struct srt_backend *)(void *)GetProcAddress(m, "srt_backend_entry");
	if (!be) {
		printf("no srt_backend_entry in %s\n", path);
		return -1;
	}
	return 0;
}

/* spawn this program with args, environment envp; *proc for the rest */
static int start(char **args, char *const *envp, void **proc)
{
	char *argv[8];
	struct srt_command cmd;
	struct srt_diag d;
	size_t i;
	int rc;

	argv[0] = self;
	for (i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&d, 0, sizeof(d));
	cmd.argv = argv;
	if ((rc = be->spawn(NULL, &cmd, envp, proc, &d)))
		printf("spawn failed: %s\n", d.message);
	return rc;
}

static int run(char **args, char *const *envp, int *status)
{
	struct srt_diag d;
	void *proc;
	int rc;

	if (start(args, envp, &proc))
		return -1;
	memset(&d, 0, sizeof(d));
	rc = be->wait_proc(NULL, proc, status, &d);
	if (rc)
		printf("wait_proc failed: %s\n", d.message);
	be->end_proc(NULL, proc);
	return rc;
}

/* the pid a child role wrote into DIR\pid, within 20 s */
static DWORD read_pid(const char *dir)
{
	char path[MAX_PATH];
	int i;

	snprintf(path, sizeof(path), "%s\\pid", dir);
	for (i = 0; i < 200; i++) {
		FILE *f = fopen(path, "r");
		unsigned long pid = 0;

		if (f) {
			int n = fscanf(f, "%lu", &pid);

			fclose(f);
			if (n == 1 && pid)
				return (DWORD)pid;
		}
		Sleep(100);
	}
	return 0;
}

/* has the process pid ended within ms? */
static int ended(HANDLE h, DWORD ms)
{
	return WaitForSingleObject(h, ms) == WAIT_OBJECT_0;
}

/* ---- child roles ---- */

static int child_parent(const char *dir)
{
	char line[MAX_PATH * 2 + 16], path[MAX_PATH];
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;
	FILE *f;

	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	snprintf(line, sizeof(line), "\"%s\" child-sleep", self);
	if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return 2;
	snprintf(path, sizeof(path), "%s\\pid.tmp", dir);
	if (!(f = fopen(path, "w")))
		return 3;
	fprintf(f, "%lu\n", (unsigned long)pi.dwProcessId);
	fclose(f);
	{
		char final[MAX_PATH];

		snprintf(final, sizeof(final), "%s\\pid", dir);
		MoveFileExA(path, final, MOVEFILE_REPLACE_EXISTING);
	}
	Sleep(60000);
	return 0;
}

static int check_tree(const char *dir)
{
	char *args[] = { "child-parent", (char *)dir, NULL };
	void *proc;
	DWORD pid;
	HANDLE h;

	if (start(args, NULL, &proc))
		return 1;
	if (!(pid = read_pid(dir))) {
		be->end_proc(NULL, proc);
		printf("the child never named its own child\n");
		return 1;
	}
	h = OpenProcess(SYNCHRONIZE, FALSE, pid);
	be->end_proc(NULL, proc);
	if (!h) {
		printf("grandchild %lu already gone before end_proc\n", (unsigned long)pid);
		return 1;
	}
	if (!ended(h, 10000)) {
		printf("grandchild %lu still runs after end_proc\n", (unsigned long)pid);
		TerminateProcess(h, 1);
		return 1;
	}
	printf("end_proc ended the grandchild %lu\n", (unsigned long)pid);
	return 0;
}

/* hold DIR: spawn the tree and never end it ourselves */
static int hold(const char *dir)
{
	char *args[] = { "child-parent", (char *)dir, NULL };
	void *proc;

	if (start(args, NULL, &proc))
		return 1;
	Sleep(60000);
	return 0;
}

static int check_orphan(const char *dir)
{
	char line[MAX_PATH * 3];
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;
	DWORD pid;
	HANDLE h;

	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	snprintf(line, sizeof(line), "\"%s\" hold \"%s\"", self, dir);
	if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return 1;
	CloseHandle(pi.hThread);
	if (!(pid = read_pid(dir)) || !(h = OpenProcess(SYNCHRONIZE, FALSE, pid))) {
		TerminateProcess(pi.hProcess, 1);
		printf("no grandchild appeared\n");
		return 1;
	}
	/* srt killed outright: no end_proc, no cleanup of its own */
	TerminateProcess(pi.hProcess, 9);
	CloseHandle(pi.hProcess);
	if (!ended(h, 10000)) {
		printf("grandchild %lu outlived the killed spawner\n", (unsigned long)pid);
		TerminateProcess(h, 1);
		return 1;
	}
	printf("the killed spawner's grandchild %lu ended with it\n", (unsigned long)pid);
	return 0;
}

int main(int argc, char **argv)
{
	int status = -1;

	if (argc < 2 || load())
		return 2;
	if (!strcmp(argv[1], "child-exit") && argc == 3)
		return atoi(argv[2]);
	if (!strcmp(argv[1], "child-env")) {
		const char *v = getenv("SRT_SPAWN_TEST");

		/* exactly what was given: the value, and nothing of ours */
		return v && !strcmp(v, "given") && !getenv("SRT_SPAWN_OURS") ? 5 : 6;
	}
	if (!strcmp(argv[1], "child-sleep")) {
		Sleep(60000);
		return 0;
	}
	if (!strcmp(argv[1], "child-parent") && argc == 3)
		return child_parent(argv[2]);
	if (!strcmp(argv[1], "hold") && argc == 3)
		return hold(argv[2]);

	if (!strcmp(argv[1], "header")) {
		int has = be->hdr.size >= offsetof(struct srt_backend, end_proc) + sizeof(be->end_proc) &&
			  be->spawn && be->wait_proc && be->end_proc;

		printf("%s abi %u.%u spawn %s\n", be->hdr.name, (unsigned)be->hdr.abi_major,
		       (unsigned)be->hdr.abi_minor, has ? "yes" : "no");
		return has ? 0 : 1;
	}
	if (!strcmp(argv[1], "exit") && argc == 3) {
		char *args[] = { "child-exit", argv[2], NULL };

		if (run(args, NULL, &status))
			return 1;
		printf("exit code %d\n", status);
		return status == atoi(argv[2]) ? 0 : 1;
	}
	if (!strcmp(argv[1], "env")) {
		char *args[] = { "child-env", NULL };
		char root[MAX_PATH + 16], given[] = "SRT_SPAWN_TEST=given";
		char *envp[] = { root, given, NULL };

		/* SystemRoot: Windows' own DLLs need it in any environment */
		snprintf(root, sizeof(root), "SystemRoot=%s",
			 getenv("SystemRoot") ? getenv("SystemRoot") : "C:\\windows");
		SetEnvironmentVariableA("SRT_SPAWN_OURS", "1");
		if (run(args, envp, &status))
			return 1;
		printf("child-env exit %d\n", status);
		return status == 5 ? 0 : 1;
	}
	if (!strcmp(argv[1], "tree") && argc == 3)
		return check_tree(argv[2]);
	if (!strcmp(argv[1], "orphan") && argc == 3)
		return check_orphan(argv[2]);
	return 2;
}
