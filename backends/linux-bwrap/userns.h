/* linux-bwrap: can this process create the user namespace bwrap needs? */
#ifndef SRT_BWRAP_USERNS_H
#define SRT_BWRAP_USERNS_H

/* The likeliest reason namespaces cannot be created here, with the fix. */
const char *srt__bwrap_userns_diagnosis(void);
/* Try it in a throwaway child: 1 when it works, else 0 with *err set. */
int srt__bwrap_userns_works(int *err);
/* Is the trial needed, or do the kernel's switches already answer? */
int srt__bwrap_userns_needs_trial(void);

#endif
